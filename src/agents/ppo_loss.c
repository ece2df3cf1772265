/* The PPO loss by hand: softmax policy over 3 actions, clipped surrogate, entropy bonus,
 * clipped value loss. Gradients follow the branches torch would differentiate. */
#include "agents/ppo_loss.h"

#include <math.h>

void NN_(log_softmax3)(const fox_real *z, double *logp, double *entropy) {
  double mx = z[0] > z[1] ? z[0] : z[1];
  mx = z[2] > mx ? z[2] : mx;
  double s = exp(z[0] - mx) + exp(z[1] - mx) + exp(z[2] - mx), lse = mx + log(s), h = 0;
  for (int j = 0; j < 3; j++) {
    logp[j] = z[j] - lse;
    h -= exp(logp[j]) * logp[j];
  }
  *entropy = h;
}

void NN_(ppo_loss)(const fox_real *logits, const fox_real *values, const uint8_t *actions,
                   const fox_real *old_logp, const fox_real *old_values, const fox_real *adv,
                   const fox_real *returns, size_t m, double clip, double ent_coef,
                   double vf_coef, fox_real *dlogits, fox_real *dvalues,
                   struct NN_(ppo_stats) *st) {
  double pg = 0, vl = 0, ent = 0, kl = 0, clipped = 0, inv = 1.0 / (double)m;
  for (size_t i = 0; i < m; i++) {
    const fox_real *z = logits + 3 * i;
    double lp[3], h;
    NN_(log_softmax3)(z, lp, &h);
    int a = actions[i];
    double logratio = lp[a] - old_logp[i], r = exp(logratio), A = adv[i];
    double rc = r < 1 - clip ? 1 - clip : r > 1 + clip ? 1 + clip : r;
    double u1 = -A * r, u2 = -A * rc;
    pg += u1 > u2 ? u1 : u2;
    /* d/dr: the unclipped branch when it is the max (ties included: clip's slope is 1 there). */
    double dr = u1 >= u2 ? -A * inv : 0.0;
    kl += (r - 1) - logratio;
    clipped += fabs(r - 1) > clip;
    ent += h;
    for (int j = 0; j < 3; j++) {
      double p = exp(lp[j]);
      double dlogp = (j == a) - p;     /* d log p_a / d z_j */
      double dh = -p * (lp[j] + h);    /* d H / d z_j */
      dlogits[3 * i + j] = (fox_real)(dr * r * dlogp - ent_coef * inv * dh);
    }
    double v = values[i], R = returns[i], vo = old_values[i];
    double dv = v - vo, vc = vo + (dv < -clip ? -clip : dv > clip ? clip : dv);
    double e1 = (v - R) * (v - R), e2 = (vc - R) * (vc - R);
    vl += e1 > e2 ? e1 : e2;
    double g = e1 >= e2 ? (v - R) : (fabs(dv) < clip ? (vc - R) : 0.0);
    dvalues[i] = (fox_real)(vf_coef * inv * g); /* d(0.5 max(...)) = (x - R) dx */
  }
  st->pg_loss = pg * inv;
  st->v_loss = 0.5 * vl * inv;
  st->entropy = ent * inv;
  st->loss = st->pg_loss - ent_coef * st->entropy + vf_coef * st->v_loss;
  st->approx_kl = kl * inv;
  st->clipfrac = clipped * inv;
}
