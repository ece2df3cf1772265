/* Losses with their gradients, in the networks' precision (nn_real.h). */
#ifndef FOX_LOSS_H
#define FOX_LOSS_H

#include <stddef.h>

#include "agents/nn_real.h"

/* Mean Huber (smooth L1, delta 1) of pred - target over n values; grad = dLoss/dpred. */
double NN_(huber_loss)(const fox_real *pred, const fox_real *target, size_t n, fox_real *grad);

#endif
