/* DQN on any backend: networks, replay and batches in the backend's memory, every step a
 * backend operation (agent_ops.h), so a vector step and its updates never wait for the host.
 * The update follows SB3/CleanRL: sample a batch, targets from the target network (Double:
 * actions from the online one), Huber on the taken actions, clip, Adam. */
#include "agents/dqn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct dqn_eps eps_(const struct dqn_config *c, long total) {
  struct dqn_eps s = {c->eps_start, c->eps_end, c->eps_fraction * (double)total,
                      c->uniform_warmup ? c->learning_starts : 0, !c->eps_per_env};
  return s;
}

double dqn_epsilon(const struct dqn_config *c, long t, long total) {
  return dqn_epsilon_at(eps_(c, total), t);
}

/* Backend buffers of a DQN: acting, one batch, clipping, the loss accumulator. */
static int alloc_(struct dqn *d, struct fox_err *e) {
  const struct backend *be = d->be;
  size_t b = (size_t)d->cfg.batch_size, n = (size_t)d->n_envs, f = sizeof(float);
  struct {
    void **p;
    size_t bytes;
  } bufs[] = {
      {(void **)&d->q, n * FOX_NACTIONS * f},
      {(void **)&d->raw, n * (FOX_NACTIONS + 1) * f},
      {(void **)&d->bs, 2 * b * (size_t)d->dim * f},
      {(void **)&d->br, b * f},
      {(void **)&d->bq, b * FOX_NACTIONS * f},
      {(void **)&d->bqo, 2 * b * FOX_NACTIONS * f},
      {(void **)&d->braw, 2 * b * (FOX_NACTIONS + 1) * f},
      {(void **)&d->bdq, b * FOX_NACTIONS * f},
      {(void **)&d->bdraw, b * (FOX_NACTIONS + 1) * f},
      {(void **)&d->coef, f},
      {(void **)&d->ba, b},
      {(void **)&d->bterm, b},
      {(void **)&d->terms, b * sizeof(double)},
      {(void **)&d->lanes, FOX_SQ_LANES * sizeof(double)},
      /* the loss accumulator and, just past it, the clock: one read at an epoch's end */
      {(void **)&d->acc, FOX_ACC_N * sizeof(double) + sizeof(struct dqn_clock)},
  };
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (!(*bufs[i].p = be->mem_alloc(bufs[i].bytes, e)))
      return e->code ? e->code : FOX_EFAIL;
  d->clk = (struct dqn_clock *)(d->acc + FOX_ACC_N); /* zeroed, as the mirrors */
  return 0;
}

int dqn_create(struct dqn *d, const struct dqn_config *c, const struct backend *be, int n_envs,
               int nfeat, const float *data_states, long total, uint64_t seed,
               struct fox_err *e) {
  memset(d, 0, sizeof *d);
  d->cfg = *c;
  d->dim = nfeat + FOX_NPORTFOLIO;
  d->eps = eps_(c, total);
  d->be = be;
  d->n_envs = n_envs;
  d->data_states = data_states;
  d->out = c->dueling ? FOX_NACTIONS + 1 : FOX_NACTIONS;
  rng_seed(&d->rng, seed);
  d->seed = rng_hash2(seed, 0x4451u); /* a stream apart from the initialisation's */
  int rc = net_create(&d->online, be->nets, d->dim, c->hidden, c->n_hidden, d->out,
                      c->activation, 1e-8, e);
  if (rc == 0)
    rc = net_create(&d->target, be->nets, d->dim, c->hidden, c->n_hidden, d->out,
                    c->activation, 1e-8, e);
  /* Acting takes n_envs rows; an update b (the target on s') and 2b (the online network on s
   * and, for Double DQN, s'). */
  int b = c->batch_size, most = n_envs > 2 * b ? n_envs : 2 * b;
  if (rc == 0)
    rc = net_reserve(&d->online, most, e);
  if (rc == 0)
    rc = net_reserve(&d->target, n_envs > b ? n_envs : b, e);
  if (rc == 0)
    rc = replay_create(&d->rb, be, data_states ? (size_t)c->buffer_size : 1, nfeat, e);
  if (rc == 0)
    rc = alloc_(d, e);
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
  if (d->be) {
    void *bufs[] = {d->q,     d->raw,  d->bs, d->br,    d->bq,    d->bqo,   d->braw, d->bdq,
                    d->bdraw, d->coef, d->ba, d->bterm, d->terms, d->lanes, d->acc};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
      if (bufs[i])
        d->be->mem_free(bufs[i]);
  }
  memset(d, 0, sizeof *d);
}

/* Q-values of a network into q [n, 3], through the dueling head when there is one. */
static int q_of_(struct dqn *d, struct net *net, const float *states, int n, float *q,
                 float *raw, struct fox_err *e) {
  if (!d->cfg.dueling)
    return net_forward(net, states, n, q, e);
  FOX_TRY(net_forward(net, states, n, raw, e));
  return d->be->agents->dqn_dueling(raw, n, q, e);
}

int dqn_q(struct dqn *d, const float *states, int n, float *q, struct fox_err *e) {
  if (n > d->n_envs)
    return fox_errf(e, FOX_EUSAGE, "dqn: %d states at once, at most %d", n, d->n_envs);
  return q_of_(d, &d->online, states, n, q, d->raw, e);
}

int dqn_act(struct dqn *d, const float *states, int n, uint8_t *actions, struct fox_err *e) {
  FOX_TRY(dqn_q(d, states, n, d->q, e));
  return d->be->agents->dqn_explore(d->q, n, d->clk, &d->eps, d->seed, actions, e);
}

int dqn_sync_target(struct dqn *d, struct fox_err *e) {
  return net_blend(&d->target, &d->online, d->cfg.tau, e);
}

/* One gradient update, every number from the clock: the batch for its update count, the
 * transitions its loss is marked with, the step count of Adam, and whether the target follows
 * now (every target_update updates, decided on the device). */
static int update_(struct dqn *d, struct fox_err *e) {
  const struct agent_ops *ops = d->be->agents;
  int b = d->cfg.batch_size;
  FOX_TRY(ops->replay_sample(&d->rb.d, d->clk, d->data_states, d->seed, b, d->bs, d->ba, d->br,
                             d->bterm, e));
  float *s2 = d->bs + (size_t)b * (size_t)d->dim;
  FOX_TRY(q_of_(d, &d->target, s2, b, d->bq, d->braw, e));
  /* The online network on s (rows 0..b-1, whose activations backward uses) and, for Double
   * DQN, on s' (rows b..2b-1) in one forward: one GEMM per layer instead of two. */
  FOX_TRY(q_of_(d, &d->online, d->bs, d->cfg.double_q ? 2 * b : b, d->bqo, d->braw, e));
  FOX_TRY(ops->dqn_loss(d->bq, d->cfg.double_q ? d->bqo + (size_t)b * FOX_NACTIONS : NULL,
                        d->bqo, d->ba, d->br, d->bterm, d->cfg.gamma, b, d->bdq, d->terms, e));
  FOX_TRY(ops->dqn_loss_sum(d->terms, b, d->clk, d->acc, e)); /* the clock counts the update */
  FOX_TRY(net_zero_grad(&d->online, e));
  if (d->cfg.dueling) {
    FOX_TRY(ops->dqn_dueling_backward(d->bdq, b, d->bdraw, e));
    FOX_TRY(net_backward(&d->online, d->bdraw, b, e));
  } else {
    FOX_TRY(net_backward(&d->online, d->bdq, b, e));
  }
  struct net *nets[1] = {&d->online};
  struct opt_lr lr = {d->cfg.lr, 0, 0};
  FOX_TRY(net_clip_step(nets, 1, d->lanes, d->coef, d->cfg.max_grad_norm, lr, NULL, e));
  return net_blend_every(&d->target, &d->online, d->cfg.tau, &d->clk->updates,
                         d->cfg.target_update, e);
}

/* train_freq's bookkeeping of one step of n from (transitions, credit): the updates due. */
static int due_(const struct dqn_config *c, long *transitions, double *credit, int n) {
  *transitions += n;
  if (*transitions < c->learning_starts)
    return 0;
  *credit += n;
  int due = 0;
  while (*credit >= c->train_freq) {
    *credit -= c->train_freq;
    due++;
  }
  return due;
}

int dqn_plan(struct dqn *d, int n) {
  int due = due_(&d->cfg, &d->transitions, &d->credit, n);
  replay_count(&d->rb, n);
  d->updates += due;
  return due;
}

void dqn_plan_ahead(const struct dqn *d, int n, long steps, int *due) {
  long transitions = d->transitions;
  double credit = d->credit;
  for (long k = 0; k < steps; k++)
    due[k] = due_(&d->cfg, &transitions, &credit, n);
}

int dqn_learn(struct dqn *d, int n, int due, const int32_t *bars, const float *s,
              const float *s2, const uint8_t *a, const float *r, const uint8_t *dones,
              struct fox_err *e) {
  FOX_TRY(replay_store(&d->rb, d->clk, n, bars, s, s2, a, r, dones, e));
  for (int k = 0; k < due; k++)
    FOX_TRY(update_(d, e));
  return 0;
}

int dqn_observe(struct dqn *d, int n, const int32_t *bars, const float *s, const float *s2,
                const uint8_t *a, const float *r, const uint8_t *dones, struct fox_err *e) {
  return dqn_learn(d, n, dqn_plan(d, n), bars, s, s2, a, r, dones, e);
}

struct dqn_clock dqn_clock_mirror(const struct dqn *d) {
  struct dqn_clock c = {d->transitions, d->updates, (int64_t)d->rb.pos, (int64_t)d->rb.size};
  return c;
}

int dqn_clock_put(struct dqn *d, struct fox_err *e) {
  struct dqn_clock c = dqn_clock_mirror(d);
  return d->be->mem_h2d(d->clk, &c, sizeof c, e);
}
