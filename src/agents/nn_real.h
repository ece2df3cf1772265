/* The precision of the CPU networks: float in foxopt; double in a second build of the same
 * sources that the gradient-check tests link (FOX_NN_DOUBLE renames every symbol). */
#ifndef FOX_NN_REAL_H
#define FOX_NN_REAL_H

#include <cblas.h>
#include <math.h>

#include "act_step.h"

#ifdef FOX_NN_DOUBLE
typedef double fox_real;
#define NN_(name) name##_f64
#define fox_gemm_ cblas_dgemm
#define fox_sqrt_ sqrt
/* Exact tanh in the gradient checks, so that finite differences see the function whose
 * derivative backward uses. */
static inline double fox_act_(int kind, double z) {
  return kind == FOX_ACT_TANH ? tanh(z) : z < 0 ? 0 : z;
}
static inline double fox_act_back_(int kind, double y, double d) {
  return kind == FOX_ACT_TANH ? d * (1 - y * y) : y > 0 ? d : 0;
}
#else
typedef float fox_real;
#define NN_(name) name
#define fox_gemm_ cblas_sgemm
#define fox_sqrt_ sqrtf
#define fox_act_ fox_act
#define fox_act_back_ fox_act_back
#endif

/* The element-wise loops of the float networks (bias + activation, its backward, Adam) in
 * AVX-512, AVX2 and baseline clones, picked at load time for the CPU at hand: the same binary
 * runs anywhere, and since no clone contracts a*b+c into an FMA (ISO C, -ffp-contract=off) and
 * every lane does its own element, all give the same floats. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(FOX_NN_DOUBLE) && \
    !defined(__SANITIZE_ADDRESS__)
#define FOX_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FOX_CLONES
#endif

#endif
