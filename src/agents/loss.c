/* Losses: value and gradient in one pass so that no caller differentiates by hand. */
#include "agents/loss.h"

#include <math.h>

double NN_(huber_loss)(const fox_real *pred, const fox_real *target, size_t n, fox_real *grad) {
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    double d = (double)pred[i] - target[i], a = fabs(d);
    sum += a < 1.0 ? 0.5 * d * d : a - 0.5;
    if (grad)
      grad[i] = (fox_real)((a < 1.0 ? d : (d > 0 ? 1.0 : -1.0)) / (double)n);
  }
  return sum / (double)n;
}
