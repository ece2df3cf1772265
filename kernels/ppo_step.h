/* PPO's per-sample and per-environment arithmetic (DESIGN.md s7, CleanRL's ppo.py), called by
 * the CPU agent (src/agents/ppo.c, ppo_loss.c, in float and in the gradient checks' double) and
 * meant for the device's kernels alike: the softmax policy over 3 actions, sampling with a
 * counter-based draw, GAE walking back over one environment's rollout, and one sample's share
 * of the clipped losses with its gradients. Arithmetic in double whatever the callers store. */
#ifndef FOX_PPO_STEP_H
#define FOX_PPO_STEP_H

#include <math.h>
#include <stdint.h>

#include "fox_hd.h"
#include "rng_step.h"

/* log-softmax of logits z, the probabilities p (may be NULL) and the entropy H; three exp and
 * one log in all. */
FOX_HD static inline void ppo_softmax3(const double *z, double *logp, double *p,
                                       double *entropy) {
  double mx = z[0] > z[1] ? z[0] : z[1];
  mx = z[2] > mx ? z[2] : mx;
  double ex[3] = {exp(z[0] - mx), exp(z[1] - mx), exp(z[2] - mx)};
  double s = ex[0] + ex[1] + ex[2], lse = mx + log(s), h = 0;
  for (int j = 0; j < 3; j++) {
    double pj = ex[j] / s;
    logp[j] = z[j] - lse;
    h -= pj * logp[j];
    if (p)
      p[j] = pj;
  }
  *entropy = h;
}

FOX_HD static inline void ppo_log_softmax3(const double *z, double *logp, double *entropy) {
  ppo_softmax3(z, logp, NULL, entropy);
}

/* Environment `env`'s action at vector step `step` of the run, drawn from softmax(logits);
 * *logp gets its log-probability. */
FOX_HD static inline int ppo_sample(const float *logits, uint64_t seed, uint64_t step,
                                    uint64_t env, float *logp) {
  double z[3] = {logits[0], logits[1], logits[2]}, lp[3], p[3], h;
  ppo_softmax3(z, lp, p, &h);
  double u = fox_u01(seed, FOX_RS_POLICY, step, env), acc = 0;
  int a = 2;
  for (int j = 0; j < 3; j++) {
    acc += p[j];
    if (u < acc) {
      a = j;
      break;
    }
  }
  *logp = (float)lp[a];
  return a;
}

/* GAE(lambda) of environment i over T steps of N environments (index t * N + i); done[k]: the
 * episode ended at step k (its reward already holds any truncation's bootstrap); last_value
 * = V(s_T). */
FOX_HD static inline void ppo_gae_env(int T, int N, int i, const float *rewards,
                                      const float *values, const uint8_t *dones,
                                      float last_value, double gamma, double lambda, float *adv,
                                      float *ret) {
  double last = 0;
  for (int t = T - 1; t >= 0; t--) {
    size_t k = (size_t)t * (size_t)N + (size_t)i;
    double next_v = t == T - 1 ? last_value : values[k + (size_t)N];
    double nonterminal = dones[k] ? 0.0 : 1.0;
    double delta = rewards[k] + gamma * next_v * nonterminal - values[k];
    last = delta + gamma * lambda * nonterminal * last;
    adv[k] = (float)last;
    ret[k] = (float)(last + values[k]);
  }
}

/* One sample's terms of the minibatch loss (the sums' summands) and its gradients, the mean's
 * 1/m (inv) included in the gradients. */
struct ppo_terms {
  double pg, vl, ent, kl, clipped;
};

FOX_HD static inline void ppo_loss_sample(const double *z, double v, int a, double old_logp,
                                          double old_v, double A, double R, double clip,
                                          double ent_coef, double vf_coef, double inv,
                                          double *dz, double *dv, struct ppo_terms *t) {
  double lp[3], pr[3], h;
  ppo_softmax3(z, lp, pr, &h);
  double logratio = lp[a] - old_logp, r = exp(logratio);
  double rc = r < 1 - clip ? 1 - clip : r > 1 + clip ? 1 + clip : r;
  double u1 = -A * r, u2 = -A * rc;
  t->pg = u1 > u2 ? u1 : u2;
  /* d/dr: the unclipped branch when it is the max (ties included: clip's slope is 1 there). */
  double dr = u1 >= u2 ? -A * inv : 0.0;
  t->kl = (r - 1) - logratio;
  t->clipped = fabs(r - 1) > clip;
  t->ent = h;
  for (int j = 0; j < 3; j++) {
    double p = pr[j];
    double dlogp = (j == a) - p;  /* d log p_a / d z_j */
    double dh = -p * (lp[j] + h); /* d H / d z_j */
    dz[j] = dr * r * dlogp - ent_coef * inv * dh;
  }
  double d = v - old_v, vc = old_v + (d < -clip ? -clip : d > clip ? clip : d);
  double e1 = (v - R) * (v - R), e2 = (vc - R) * (vc - R);
  t->vl = e1 > e2 ? e1 : e2;
  double g = e1 >= e2 ? (v - R) : (fabs(d) < clip ? (vc - R) : 0.0);
  *dv = vf_coef * inv * g; /* d(0.5 max(...)) = (x - R) dx */
}

#endif
