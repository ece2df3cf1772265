/* The PPO loss by hand: softmax policy over 3 actions, clipped surrogate, entropy bonus,
 * clipped value loss; each sample's arithmetic is ppo_step.h's. Gradients follow the branches
 * torch would differentiate. */
#include "agents/ppo_loss.h"

#include <math.h>

#include "ppo_step.h"

void NN_(log_softmax3)(const fox_real *z, double *logp, double *entropy) {
  double zd[3] = {z[0], z[1], z[2]};
  ppo_log_softmax3(zd, logp, entropy);
}

void NN_(ppo_loss)(const fox_real *logits, const fox_real *values, const uint8_t *actions,
                   const fox_real *old_logp, const fox_real *old_values, const fox_real *adv,
                   const fox_real *returns, size_t m, double clip, double ent_coef,
                   double vf_coef, int vloss, fox_real *dlogits, fox_real *dvalues,
                   struct NN_(ppo_stats) *st) {
  double pg = 0, vl = 0, ent = 0, kl = 0, clipped = 0, inv = 1.0 / (double)m;
  for (size_t i = 0; i < m; i++) {
    double z[3] = {logits[3 * i], logits[3 * i + 1], logits[3 * i + 2]}, dz[3], dv;
    struct ppo_terms t;
    ppo_loss_sample(z, values[i], actions[i], old_logp[i], old_values[i], adv[i], returns[i],
                    clip, ent_coef, vf_coef, vloss, inv, dz, &dv, &t);
    for (int j = 0; j < 3; j++)
      dlogits[3 * i + j] = (fox_real)dz[j];
    dvalues[i] = (fox_real)dv;
    pg += t.pg, vl += t.vl, ent += t.ent, kl += t.kl, clipped += t.clipped;
  }
  st->pg_loss = pg * inv;
  st->v_loss = 0.5 * vl * inv;
  st->entropy = ent * inv;
  st->loss = st->pg_loss - ent_coef * st->entropy + vf_coef * st->v_loss;
  st->approx_kl = kl * inv;
  st->clipfrac = clipped * inv;
}
