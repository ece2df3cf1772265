/* The one parameter layout of every MLP (CPU, CUDA, trial.h5): layer l holds W_l
 * [dims[l+1], dims[l]] row-major, then b_l [dims[l+1]]. */
#ifndef FOX_MLP_LAYOUT_H
#define FOX_MLP_LAYOUT_H

#include <stddef.h>

/* Fills dims[0 .. n_hidden+1] and offset[0 .. n_hidden] (when offset is not NULL); returns the
 * parameter count. The caller has checked n_hidden against its arrays. */
static inline size_t mlp_layout(int in, const int *hidden, int n_hidden, int out, int *dims,
                                size_t *offset) {
  size_t n = 0;
  dims[0] = in;
  for (int l = 0; l < n_hidden; l++)
    dims[l + 1] = hidden[l];
  dims[n_hidden + 1] = out;
  for (int l = 0; l <= n_hidden; l++) {
    if (offset)
      offset[l] = n;
    n += (size_t)dims[l + 1] * (size_t)(dims[l] + 1);
  }
  return n;
}

#endif
