/* The three GEMMs of an MLP's forward and backward on row-major batches, through libxsmm's
 * just-in-time small-matrix kernels where foxopt was built with it (1.2-1.5x OpenBLAS at the
 * 54-256-wide layers of the agents: tests/bench/bench_gemm), OpenBLAS for wider layers (where
 * its packed kernels win), for any shape libxsmm declines, and in builds without libxsmm.
 * Compiled in float for foxopt and in double for the gradient checks (nn_real.h); the double
 * build always uses OpenBLAS. */
#ifndef FOX_GEMM_H
#define FOX_GEMM_H

#include "agents/nn_real.h"

/* Y [B, o] = X [B, in] W^T, given Wt = W^T [in, o] row-major (the forward). */
void NN_(gemm_xwt)(int B, int in, int o, const fox_real *X, const fox_real *Wt, fox_real *Y);
/* gW [o, in] += dY^T [o, B] X [B, in] (the weight gradient). */
void NN_(gemm_dw)(int B, int in, int o, const fox_real *dY, const fox_real *X, fox_real *gW);
/* dX [B, in] = dY [B, o] W [o, in] (the input gradient). */
void NN_(gemm_dx)(int B, int in, int o, const fox_real *dY, const fox_real *W, fox_real *dX);
/* Which library runs them: "libxsmm (<its target>)" or "openblas". */
const char *NN_(gemm_library)(void);

#endif
