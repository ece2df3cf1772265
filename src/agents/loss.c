/* Losses: value and gradient in one pass so that no caller differentiates by hand. */
#include "agents/loss.h"

#include <math.h>

#include "dqn_step.h"

double NN_(huber_loss)(const fox_real *pred, const fox_real *target, size_t n, fox_real *grad) {
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    double g;
    sum += dqn_huber((double)pred[i] - target[i], &g);
    if (grad)
      grad[i] = (fox_real)(g / (double)n);
  }
  return sum / (double)n;
}
