/* The optimiser's per-element arithmetic, called by the CPU network (src/agents/net.c) and the
 * CUDA kernels (kernels/mlp_cuda.cu) alike, so that both backends take the same floats:
 * the gradients' squared norm as FOX_SQ_LANES strided partial sums in double (lane k sums
 * elements k, k + LANES, ... in order; the lanes are then added in order: one reduction order
 * on every backend, and a kernel of LANES threads), torch's clip_grad_norm_ coefficient in
 * float, and one Adam element. */
#ifndef FOX_OPT_STEP_H
#define FOX_OPT_STEP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "fox_hd.h"

#define FOX_SQ_LANES 256
/* The most networks one optimiser step takes (PPO's actor and critic). */
#define FOX_CLIP_NETS 2

/* Lane k's partial sum of g[i]^2 over i = k, k + FOX_SQ_LANES, ... < n. */
FOX_HD static inline double opt_sq_lane(const float *g, size_t n, int lane) {
  double s = 0;
  for (size_t i = (size_t)lane; i < n; i += FOX_SQ_LANES)
    s += (double)g[i] * g[i];
  return s;
}

/* torch.nn.utils.clip_grad_norm_'s factor from the lanes of every network clipped together:
 * max_norm / (norm + 1e-6), clamped to 1 (torch computes it in float32, then multiplies). */
FOX_HD static inline float opt_clip_coef(const double *lanes, double max_norm) {
  double sq = 0;
  for (int k = 0; k < FOX_SQ_LANES; k++)
    sq += lanes[k];
  double coef = max_norm / (sqrt(sq) + 1e-6);
  return coef < 1.0 ? (float)coef : 1.0f;
}

/* Adam's constants of step t (torch's: p -= lr / c1 * m / (sqrt(v) / sqrt(c2) + eps)). A
 * device computes them with its own pow: within an ulp or two of the host's, so a GPU's Adam
 * may differ from the CPU's in the last place of a step size (the emulation's does not). */
struct opt_adam {
  float b1, b2, step, isc2, eps;
};

FOX_HD static inline struct opt_adam opt_adam_at(int64_t t, double lr, double eps) {
  double c1 = 1 - pow(0.9, (double)t), c2 = 1 - pow(0.999, (double)t);
  struct opt_adam a = {0.9f, 0.999f, (float)(lr / c1), (float)(1.0 / sqrt(c2)), (float)eps};
  return a;
}

/* A network's optimiser state where its parameters live (backend memory): Adam's step count
 * and the constants of its latest step, which the one-thread clip kernel computes for the
 * element kernel to read, so that no step's numbers come from the host. */
struct opt_state {
  int64_t t;
  double eps;
  struct opt_adam a;
};

/* The learning rate of an update: lr, or with anneal CleanRL's linear annealing over
 * `horizon` updates (1 - progress / horizon, never below 0: never an ascent, whatever the
 * plan), progress counted where the backend keeps it. */
struct opt_lr {
  double lr;
  int anneal;
  int64_t horizon;
};

FOX_HD static inline double opt_lr_at(struct opt_lr s, int64_t progress) {
  if (!s.anneal || s.horizon <= 0)
    return s.lr;
  double frac = 1.0 - (double)progress / (double)s.horizon;
  return s.lr * (frac > 0 ? frac : 0);
}

/* The step's coefficient and each network's Adam constants (k networks clipped together):
 * what the one-thread clip kernel does, and the CPU between its loops. */
FOX_HD static inline float opt_prepare(const double *lanes, double max_norm, struct opt_lr lr,
                                       const int64_t *progress, struct opt_state *const *st,
                                       int k) {
  double rate = opt_lr_at(lr, progress ? *progress : 0);
  for (int i = 0; i < k; i++) {
    st[i]->t++;
    st[i]->a = opt_adam_at(st[i]->t, rate, st[i]->eps);
  }
  return opt_clip_coef(lanes, max_norm);
}

/* One parameter: the gradient times the clip coefficient (as clip_grad_norm_ leaves it in
 * place), then Adam's moments and the step. */
FOX_HD static inline void opt_adam_elem(float *p, float *m, float *v, float g, float coef,
                                        struct opt_adam a) {
  float gi = g * coef;
  float mi = a.b1 * *m + (1.0f - a.b1) * gi;
  float vi = a.b2 * *v + (1.0f - a.b2) * gi * gi;
  *m = mi;
  *v = vi;
  *p -= a.step * mi / (sqrtf(vi) * a.isc2 + a.eps);
}

/* The soft target update's element: dst = tau src + (1 - tau) dst (SB3's polyak_update); tau
 * 1 is a copy (bit for bit: no 0 * dst to turn -0 into +0 or inf into NaN). */
FOX_HD static inline float opt_blend_elem(float dst, float src, float tau) {
  return tau >= 1.0f ? src : tau * src + (1.0f - tau) * dst;
}

/* Whether a blend given a counter and a period runs now: every `every` counts (the DQN's
 * target update after every target_update gradient updates); no counter: always. */
FOX_HD static inline int opt_blend_due(const int64_t *count, int64_t every) {
  return !count || (every > 0 && *count % every == 0);
}

#endif
