/* PPO's per-sample and per-environment arithmetic (DESIGN.md s7, CleanRL's ppo.py), called by
 * the CPU backend's loops (src/backend/cpu_agents.c; ppo_loss.c in the gradient checks'
 * double) and the device's kernels (kernels/agent_kernels.cu) alike: the softmax policy over 3 actions, sampling with a
 * counter-based draw, GAE walking back over one environment's rollout, and one sample's share
 * of the clipped losses with its gradients. Arithmetic in double whatever the callers store. */
#ifndef FOX_PPO_STEP_H
#define FOX_PPO_STEP_H

#include <math.h>
#include <stdint.h>

#include "backend/agent_ops.h"
#include "env_step.h"
#include "fox_hd.h"
#include "rng_step.h"

/* PPO's counter where the backend keeps it (device memory on CUDA): rollouts learned from.
 * A vector step's draw, an epoch's permutation, the annealed learning rate and the loss
 * accumulator's transitions follow from it, so that a captured rollout replays unchanged. */
struct ppo_clock {
  int64_t updates;
};

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

/* ppo.value_loss: the critic's squared error e(x) = (x - R)^2 at its prediction v, or at vc,
 * the prediction clipped to old_v +- clip: CleanRL's max(e(v), e(vc)); SB3's e(vc) (its
 * clip_range_vf); e(v) alone (SB3's default, clip_range_vf None). */
enum { FOX_VLOSS_MAX = 0, FOX_VLOSS_CLIPPED = 1, FOX_VLOSS_UNCLIPPED = 2 };

FOX_HD static inline void ppo_loss_sample(const double *z, double v, int a, double old_logp,
                                          double old_v, double A, double R, double clip,
                                          double ent_coef, double vf_coef, int vloss,
                                          double inv, double *dz, double *dv,
                                          struct ppo_terms *t) {
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
  /* dvc/dv: 1 inside the clip, 0 on it (torch's clamp passes the gradient at the bounds, but
   * d == +-clip exactly is a measure-zero tie) */
  double g2 = fabs(d) < clip ? (vc - R) : 0.0, g;
  if (vloss == FOX_VLOSS_UNCLIPPED)
    t->vl = e1, g = v - R;
  else if (vloss == FOX_VLOSS_CLIPPED)
    t->vl = e2, g = g2;
  else
    t->vl = e1 > e2 ? e1 : e2, g = e1 >= e2 ? (v - R) : g2;
  *dv = vf_coef * inv * g; /* d(0.5 e) = (x - R) dx */
}

/* The Feistel network of one (n, seed, round) (ppo_perm_at below): its parameters and one
 * pass. */
struct ppo_perm {
  int h;         /* half the domain's bits */
  uint32_t mask; /* (1 << h) - 1 */
  uint64_t key;  /* the round's key */
};

FOX_HD static inline struct ppo_perm ppo_perm_setup(uint32_t n, uint64_t seed, uint64_t round) {
  struct ppo_perm q;
  q.h = 1;
  while (((uint64_t)1 << (2 * q.h)) < (uint64_t)n)
    q.h++;
  q.mask = (uint32_t)(((uint64_t)1 << q.h) - 1);
  q.key = fox_mix3(seed, FOX_RS_PERMUTE, round);
  return q;
}

/* One pass of the Feistel network over the domain: a bijection of [0, 2^(2h)). */
FOX_HD static inline uint32_t ppo_perm_pass(uint32_t x, struct ppo_perm q) {
  uint32_t l = x >> q.h, r = x & q.mask;
  for (int k = 0; k < 4; k++) {
    uint32_t f = (uint32_t)fox_splitmix(q.key ^ ((uint64_t)k << 40) ^ r) & q.mask;
    uint32_t t = r;
    r = l ^ f;
    l = t;
  }
  return (l << q.h) | r;
}

/* Entry i of a pseudo-random permutation of 0 .. n-1 drawn for (seed, round): a 4-round
 * Feistel network (splitmix rounds) on the smallest domain of an even number of bits that
 * holds n, cycle-walked into [0, n) (under 4 steps on average: the domain is below 4n; it
 * always ends, the walk's cycle returning to i at worst). Every entry is independent of the
 * others, so the device computes one per thread and the CPU applies the same passes to all
 * entries at once (cpu_agents.c), where a Fisher-Yates shuffle would be one thread's serial
 * walk over the whole rollout. */
FOX_HD static inline uint32_t ppo_perm_at(uint32_t i, uint32_t n, uint64_t seed,
                                          uint64_t round) {
  struct ppo_perm q = ppo_perm_setup(n, seed, round);
  uint32_t x = i;
  do
    x = ppo_perm_pass(x, q);
  while (x >= n);
  return x;
}

/* A truncated environment's reward gets gamma V(s'), the cut-off future bootstrapped. */
FOX_HD static inline float ppo_bootstrap_reward(float r, uint8_t done, float v_next,
                                                double gamma) {
  return done == FOX_DONE_TRUNCATED ? r + (float)(gamma * v_next) : r;
}

/* Row j of a minibatch: rollout row k. */
FOX_HD static inline void ppo_gather_at(const struct rollout_dev *ro, size_t k, int j,
                                        const struct minibatch_dev *mb) {
  const float *o = ro->obs + k * (size_t)ro->dim;
  float *d = mb->obs + (size_t)j * (size_t)mb->dim;
  for (int f = 0; f < ro->dim; f++)
    d[f] = o[f];
  mb->act[j] = ro->actions[k];
  mb->oldlogp[j] = ro->logp[k];
  mb->oldv[j] = ro->values[k];
  mb->ret[j] = ro->ret[k];
  mb->adv[j] = ro->adv[k];
}

/* Row j of a minibatch: rollout row k = idx[j]. */
FOX_HD static inline void ppo_gather_row(const struct rollout_dev *ro, const uint32_t *idx,
                                         int j, const struct minibatch_dev *mb) {
  ppo_gather_at(ro, idx[j], j, mb);
}

/* The minibatch advantages' mean and std (torch's: ddof 1), in order. */
FOX_HD static inline void ppo_adv_stats(const float *adv, int m, double *stats) {
  double mean = 0, var = 0;
  for (int j = 0; j < m; j++)
    mean += adv[j];
  mean /= (double)m;
  for (int j = 0; j < m; j++)
    var += (adv[j] - mean) * (adv[j] - mean);
  stats[0] = mean;
  stats[1] = m > 1 ? sqrt(var / (double)(m - 1)) : 0.0;
}

/* Sample i of a minibatch of m from the networks' outputs (logits [3], value): its advantage
 * normalised, its terms [5] (terms) and gradients (dlogits [3], dvalue). */
FOX_HD static inline void ppo_loss_row(const struct minibatch_dev *mb, int m, int i,
                                       const float *logits, float value, const double *stats,
                                       double clip, double ent_coef, double vf_coef,
                                       int vloss, float *dlogits, float *dvalue,
                                       double *terms) {
  float A = (float)((mb->adv[i] - stats[0]) / (stats[1] + 1e-8));
  double z[3] = {logits[0], logits[1], logits[2]}, dz[3], dv;
  struct ppo_terms t;
  ppo_loss_sample(z, value, mb->act[i], mb->oldlogp[i], mb->oldv[i], A, mb->ret[i], clip,
                  ent_coef, vf_coef, vloss, 1.0 / (double)m, dz, &dv, &t);
  for (int j = 0; j < 3; j++)
    dlogits[j] = (float)dz[j];
  *dvalue = (float)dv;
  terms[0] = t.pg, terms[1] = t.vl, terms[2] = t.ent, terms[3] = t.kl, terms[4] = t.clipped;
}

/* Sample i of a minibatch of m: ppo_loss_row on the minibatch's outputs, its gradients into
 * the minibatch and its terms at terms + 5 i. */
FOX_HD static inline void ppo_loss_item(const struct minibatch_dev *mb, int m, int i,
                                        const double *stats, double clip, double ent_coef,
                                        double vf_coef, int vloss, double *terms) {
  ppo_loss_row(mb, m, i, mb->logits + 3 * (size_t)i, mb->values[i], stats, clip, ent_coef,
               vf_coef, vloss, mb->dlogits + 3 * (size_t)i, &mb->dvalues[i],
               terms + 5 * (size_t)i);
}

/* The minibatch's loss from its terms, summed in order, into acc (the approximate KL and clip
 * fraction are kept in the terms for a report that wants them). */
FOX_HD static inline void ppo_loss_sum(const double *terms, int m, double ent_coef,
                                       double vf_coef, long transitions, double *acc) {
  double s[5] = {0, 0, 0, 0, 0}, inv = 1.0 / (double)m;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < 5; j++)
      s[j] += terms[5 * (size_t)i + (size_t)j];
  double pg = s[0] * inv, vl = 0.5 * s[1] * inv, ent = s[2] * inv;
  double loss = pg - ent_coef * ent + vf_coef * vl;
  acc[FOX_ACC_LOSS] += loss;
  acc[FOX_ACC_UPDATES] += 1.0;
  if (!isfinite(loss) && acc[FOX_ACC_BAD] == 0.0)
    acc[FOX_ACC_BAD] = 1.0 + (double)transitions;
}

#endif
