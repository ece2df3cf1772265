/* The precision of the CPU networks: float in foxopt; double in a second build of the same
 * sources that the gradient-check tests link (FOX_NN_DOUBLE renames every symbol). */
#ifndef FOX_NN_REAL_H
#define FOX_NN_REAL_H

#include <cblas.h>

#ifdef FOX_NN_DOUBLE
typedef double fox_real;
#define NN_(name) name##_f64
#define fox_gemm_ cblas_dgemm
#define fox_sqrt_ sqrt
#else
typedef float fox_real;
#define NN_(name) name
#define fox_gemm_ cblas_sgemm
#define fox_sqrt_ sqrtf
#endif

#endif
