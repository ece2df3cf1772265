/* PPO's minibatch loss (CleanRL's ppo.py) with its gradients, in the networks' precision. */
#ifndef FOX_PPO_LOSS_H
#define FOX_PPO_LOSS_H

#include <stddef.h>
#include <stdint.h>

#include "agents/nn_real.h"

struct NN_(ppo_stats) {
  double loss, pg_loss, v_loss, entropy, approx_kl, clipfrac;
};

/* For m samples: logits [m, 3] and values [m] of the current networks; the rollout's actions,
 * log-probabilities and values; advantages (already normalised) and returns. Writes
 * dLoss/dlogits [m, 3] and dLoss/dvalues [m] of
 *   loss = mean(max(-A r, -A clip(r, 1-c, 1+c))) - ent_coef mean(H)
 *          + vf_coef 0.5 mean(max((v - R)^2, (v_old + clip(v - v_old, -c, c) - R)^2))
 * (vloss FOX_VLOSS_MAX; CLIPPED: the second square alone, UNCLIPPED: the first). */
void NN_(ppo_loss)(const fox_real *logits, const fox_real *values, const uint8_t *actions,
                   const fox_real *old_logp, const fox_real *old_values, const fox_real *adv,
                   const fox_real *returns, size_t m, double clip, double ent_coef,
                   double vf_coef, int vloss, fox_real *dlogits, fox_real *dvalues,
                   struct NN_(ppo_stats) *st);
/* log-softmax of one row of 3 logits, and its entropy. */
void NN_(log_softmax3)(const fox_real *z, double *logp, double *entropy);

#endif
