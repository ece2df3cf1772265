/* DQN on the CPU networks. The update follows SB3/CleanRL: sample a batch, targets from the
 * target network (Double: actions from the online one), Huber on the taken actions, clip, Adam. */
#include "agents/dqn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents/loss.h"

void dqn_targets(const float *q_target, const float *q_online, const float *r,
                 const uint8_t *terminal, double gamma, size_t n, float *y) {
  for (size_t i = 0; i < n; i++)
    y[i] = dqn_target(q_target + i * FOX_NACTIONS, q_online ? q_online + i * FOX_NACTIONS : NULL,
                      r[i], terminal[i], gamma);
}

void dqn_dueling(const float *raw, size_t n, float *q) {
  for (size_t i = 0; i < n; i++) {
    const float *x = raw + i * (FOX_NACTIONS + 1);
    float mean = (x[1] + x[2] + x[3]) / 3.0f;
    for (int a = 0; a < FOX_NACTIONS; a++)
      q[i * FOX_NACTIONS + a] = x[0] + x[1 + a] - mean;
  }
}

void dqn_dueling_backward(const float *dq, size_t n, float *draw) {
  for (size_t i = 0; i < n; i++) {
    const float *g = dq + i * FOX_NACTIONS;
    float *d = draw + i * (FOX_NACTIONS + 1), sum = g[0] + g[1] + g[2];
    d[0] = sum;
    for (int a = 0; a < FOX_NACTIONS; a++)
      d[1 + a] = g[a] - sum / 3.0f;
  }
}

double dqn_epsilon(const struct dqn_config *c, long t, long total) {
  double span = c->eps_fraction * (double)total;
  double frac = span > 0 ? (double)t / span : 1.0;
  if (frac > 1)
    frac = 1;
  return c->eps_start + frac * (c->eps_end - c->eps_start);
}

int dqn_create(struct dqn *d, const struct dqn_config *c, const struct net_ops *ops,
               uint64_t seed, struct fox_err *e) {
  memset(d, 0, sizeof *d);
  d->cfg = *c;
  d->out = c->dueling ? FOX_NACTIONS + 1 : FOX_NACTIONS;
  rng_seed(&d->rng, seed);
  d->seed = rng_hash2(seed, 0x4451u); /* a stream apart from the initialisation's */
  int rc = net_create(&d->online, ops, FOX_STATE_DIM, c->hidden, c->n_hidden, d->out,
                      c->activation, 1e-8, e);
  if (rc == 0)
    rc = net_create(&d->target, ops, FOX_STATE_DIM, c->hidden, c->n_hidden, d->out,
                    c->activation, 1e-8, e);
  if (rc == 0)
    rc = replay_create(&d->rb, (size_t)c->buffer_size, e);
  size_t b = (size_t)c->batch_size;
  d->bs = malloc(2 * b * FOX_STATE_DIM * sizeof(float));
  d->br = malloc(b * sizeof(float));
  d->by = malloc(b * sizeof(float));
  d->braw = malloc(2 * b * (FOX_NACTIONS + 1) * sizeof(float));
  d->bq = malloc(b * FOX_NACTIONS * sizeof(float));
  d->bqo = malloc(2 * b * FOX_NACTIONS * sizeof(float));
  d->bpred = malloc(b * sizeof(float));
  d->bdq = malloc(b * FOX_NACTIONS * sizeof(float));
  d->bdraw = malloc(b * (FOX_NACTIONS + 1) * sizeof(float));
  d->ba = malloc(b);
  d->bterm = malloc(b);
  d->bidx = malloc(b * sizeof(size_t));
  if (rc == 0 && (!d->bs || !d->br || !d->by || !d->braw || !d->bq || !d->bqo || !d->bpred ||
                  !d->bdq || !d->bdraw || !d->ba || !d->bterm || !d->bidx))
    rc = fox_errf(e, FOX_EFAIL, "dqn: out of memory for a batch of %zu", b);
  if (rc != 0) {
    dqn_free(d);
    return rc;
  }
  /* dqn.init: torch's nn.Linear default (CleanRL's dqn.py), or layer_init's orthogonal
   * weights with the Q head as a value head (gain 1). */
  if (rc == 0)
    rc = net_init(&d->online, &d->rng, c->init, 1.0, e);
  if (rc == 0)
    rc = net_blend(&d->target, &d->online, 1.0, e);
  if (rc != 0)
    dqn_free(d);
  return rc;
}

void dqn_free(struct dqn *d) {
  net_free(&d->online);
  net_free(&d->target);
  replay_free(&d->rb);
  free(d->bs), free(d->br), free(d->by), free(d->braw), free(d->bq), free(d->bqo);
  free(d->bpred), free(d->bdq), free(d->bdraw), free(d->ba), free(d->bterm), free(d->bidx);
  memset(d, 0, sizeof *d);
}

/* Q-values of a network into q [n, 3], through the dueling head when there is one. */
static int q_of_(struct dqn *d, struct net *net, const float *states, int n, float *q,
                 float *raw, struct fox_err *e) {
  if (!d->cfg.dueling)
    return net_forward(net, states, n, q, e);
  FOX_TRY(net_forward(net, states, n, raw, e));
  dqn_dueling(raw, (size_t)n, q);
  return 0;
}

int dqn_q(struct dqn *d, const float *states, int n, float *q, struct fox_err *e) {
  float *raw = d->cfg.dueling ? malloc((size_t)n * (FOX_NACTIONS + 1) * sizeof *raw) : NULL;
  if (d->cfg.dueling && !raw)
    return fox_errf(e, FOX_EFAIL, "dqn: out of memory");
  int rc = q_of_(d, &d->online, states, n, q, raw, e);
  free(raw);
  return rc;
}

int dqn_act(struct dqn *d, const float *states, int n, double eps, uint8_t *actions,
            struct fox_err *e) {
  float *q = malloc((size_t)n * FOX_NACTIONS * sizeof *q);
  if (!q)
    return fox_errf(e, FOX_EFAIL, "dqn: out of memory");
  int rc = dqn_q(d, states, n, q, e);
  for (int i = 0; rc == 0 && i < n; i++)
    actions[i] = (uint8_t)dqn_explore(q + (size_t)i * FOX_NACTIONS, eps, d->seed,
                                      (uint64_t)d->transitions, (uint64_t)i);
  free(q);
  return rc;
}

int dqn_sync_target(struct dqn *d, struct fox_err *e) {
  return net_blend(&d->target, &d->online, d->cfg.tau, e);
}

static int update_(struct dqn *d, double *loss, struct fox_err *e) {
  size_t b = (size_t)d->cfg.batch_size;
  for (size_t i = 0; i < b; i++)
    d->bidx[i] = (size_t)dqn_replay_index(d->seed, (uint64_t)d->updates, i, d->rb.size);
  float *s2 = d->bs + b * FOX_STATE_DIM;
  for (size_t i = 0; i < b; i++) {
    size_t k = d->bidx[i];
    memcpy(d->bs + i * FOX_STATE_DIM, d->rb.s + k * FOX_STATE_DIM, FOX_STATE_DIM * sizeof(float));
    memcpy(s2 + i * FOX_STATE_DIM, d->rb.s2 + k * FOX_STATE_DIM, FOX_STATE_DIM * sizeof(float));
    d->ba[i] = d->rb.a[k];
    d->br[i] = d->rb.r[k];
    d->bterm[i] = d->rb.term[k];
  }
  int nb = (int)b;
  FOX_TRY(q_of_(d, &d->target, s2, nb, d->bq, d->braw, e));
  /* The online network on s (rows 0..b-1, whose activations backward uses) and, for Double
   * DQN, on s' (rows b..2b-1) in one forward: one GEMM per layer instead of two. */
  FOX_TRY(q_of_(d, &d->online, d->bs, d->cfg.double_q ? 2 * nb : nb, d->bqo, d->braw, e));
  dqn_targets(d->bq, d->cfg.double_q ? d->bqo + b * FOX_NACTIONS : NULL, d->br, d->bterm,
              d->cfg.gamma, b, d->by);
  float *pred = d->bpred; /* the taken action's Q per sample */
  for (size_t i = 0; i < b; i++)
    pred[i] = d->bqo[i * FOX_NACTIONS + d->ba[i]];
  float *dpred = d->br; /* reuse: rewards were consumed by the targets */
  *loss = huber_loss(pred, d->by, b, dpred);
  memset(d->bdq, 0, b * FOX_NACTIONS * sizeof(float));
  for (size_t i = 0; i < b; i++)
    d->bdq[i * FOX_NACTIONS + d->ba[i]] = dpred[i];
  FOX_TRY(net_zero_grad(&d->online, e));
  if (d->cfg.dueling) {
    dqn_dueling_backward(d->bdq, b, d->bdraw);
    FOX_TRY(net_backward(&d->online, d->bdraw, nb, e));
  } else {
    FOX_TRY(net_backward(&d->online, d->bdq, nb, e));
  }
  struct net *nets[1] = {&d->online};
  FOX_TRY(net_clip_step(nets, 1, d->cfg.max_grad_norm, d->cfg.lr, e));
  d->updates++;
  if (d->updates % d->cfg.target_update == 0)
    FOX_TRY(dqn_sync_target(d, e));
  return 0;
}

int dqn_observe(struct dqn *d, int n, const float *s, const uint8_t *a, const float *r,
                const float *s2, const uint8_t *terminal, double *loss, struct fox_err *e) {
  replay_push(&d->rb, (size_t)n, s, a, r, s2, terminal);
  d->transitions += n;
  *loss = NAN;
  if (d->transitions < d->cfg.learning_starts)
    return 0;
  d->credit += n;
  double sum = 0;
  int k = 0;
  while (d->credit >= d->cfg.train_freq) {
    d->credit -= d->cfg.train_freq;
    double l;
    FOX_TRY(update_(d, &l, e));
    sum += l;
    k++;
  }
  if (k)
    *loss = sum / k;
  return 0;
}
