/* The hidden layers' activations (ReLU, tanh) and their derivatives from the output, shared by
 * the CPU MLP (src/agents/mlp.c) and the CUDA one (kernels/mlp_cuda.cu), so that both compute
 * the same floats. */
#ifndef FOX_ACT_STEP_H
#define FOX_ACT_STEP_H

#include "fox_hd.h"

enum { FOX_ACT_RELU = 0, FOX_ACT_TANH = 1 };
enum { FOX_INIT_DEFAULT = 0, FOX_INIT_ORTHOGONAL = 1 };

/* tanh in float as a rational function (odd degree-13 numerator over even degree-6
 * denominator, Eigen's minimax fit): within 4.1e-7 of tanh over the whole line (7 ulp at worst,
 * near 5.8; test_nn_grad), with no libm call, so it vectorises on the CPU and gives the same
 * bits on a device built without FMA contraction. Saturates at +-9, where float's tanh is +-1 to
 * the last bit. */
FOX_HD static inline float fox_tanhf(float a) {
  float x = a > 9.0f ? 9.0f : a < -9.0f ? -9.0f : a;
  float x2 = x * x;
  float p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
  p = x2 * p + -8.60467152213735e-11f;
  p = x2 * p + 5.12229709037114e-08f;
  p = x2 * p + 1.48572235717979e-05f;
  p = x2 * p + 6.37261928875436e-04f;
  p = x2 * p + 4.89352455891786e-03f;
  p = x * p;
  float q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
  q = x2 * q + 2.26843463243900e-03f;
  q = x2 * q + 4.89352518554385e-03f;
  float y = p / q;
  /* |y| <= 1 keeps the derivative 1 - y^2 from going negative at the saturation point. */
  y = y > 1.0f ? 1.0f : y < -1.0f ? -1.0f : y;
  /* Below 4e-4, tanh x = x - x^3/3 is x to within half an ulp (and the fit's leading
   * coefficients would lose subnormals). Chosen after the fit rather than by an early return,
   * so that every lane runs the same instructions and the choice is one blend: a third less
   * time in the CPU's bias + tanh loop, where the early return masked every operation. */
  float m = a < 0.0f ? -a : a;
  return m < 4e-4f ? a : y;
}

/* The config's name of an activation ("relu", "tanh"), for files and messages. */
static inline const char *fox_act_name(int kind) { return kind == FOX_ACT_TANH ? "tanh" : "relu"; }

/* A hidden unit's output from its pre-activation. NaN stays NaN under both (torch does the
 * same), which is how a diverged network is noticed. */
FOX_HD static inline float fox_act(int kind, float z) {
  if (kind == FOX_ACT_TANH)
    return fox_tanhf(z);
  return z < 0.0f ? 0.0f : z;
}

/* dLoss/dz from dLoss/dy and the unit's output y = act(z): d (1 - y^2) for tanh; for ReLU d
 * where y > 0 and exactly 0 elsewhere (even when d is not finite, as torch's mask does). */
FOX_HD static inline float fox_act_back(int kind, float y, float d) {
  if (kind == FOX_ACT_TANH)
    return d * (1.0f - y * y);
  return y > 0.0f ? d : 0.0f;
}

#endif
