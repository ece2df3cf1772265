/* Trial checkpoints in HDF5. Structs of the environments are stored as their bytes (a checkpoint
 * is read back by the same build); everything else as typed arrays that h5dump shows. */
#include "train/trial_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "act_step.h"
#include "backtest/metrics.h"
#include "util/h5io.h"

/* 2: networks record their activation, the checkpoint the reward scale its buffers hold, and
 * the agents' draws are counter-based (a version-1 file continues other draws).
 * 3: the replay ring is compact (bar and portfolio features, agent_ops.h) and gradients are
 * clipped with a float coefficient from lane sums (opt_step.h). */
#define CKPT_VERSION 3

static hid_t group_(hid_t loc, const char *name, struct fox_err *e) {
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name);
  return g;
}

static hid_t open_(hid_t loc, const char *name, const char *file, struct fox_err *e) {
  int has = h5io_find(loc, name, file, e);
  if (has <= 0) {
    if (has == 0)
      fox_errf(e, FOX_EDATA, "%s: checkpoint lacks %s", file, name);
    return -1;
  }
  hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
  if (g < 0)
    h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, name);
  return g;
}

/* Runs `body` on a new or opened subgroup and closes it whatever happens. */
#define IN_GROUP_(g, open_expr, body)  \
  do {                                 \
    hid_t g = (open_expr);             \
    if (g < 0)                         \
      return e->code ? e->code : FOX_EFAIL; \
    int rc_ = (body);                  \
    H5Gclose(g);                       \
    FOX_TRY(rc_);                      \
  } while (0)

static int i64_attr_(hid_t g, const char *name, int64_t v, struct fox_err *e) {
  return h5io_attr_write(g, name, H5T_NATIVE_INT64, &v, 1, e);
}

static int i64_read_(hid_t g, const char *name, int64_t *v, const char *file,
                     struct fox_err *e) {
  return h5io_attr_read(g, name, H5T_NATIVE_INT64, v, 1, file, e);
}

/* Parameters, Adam's moments and step. */
static int net_write_(hid_t g, const struct net *n, struct fox_err *e) {
  size_t np = n->n_params;
  float *buf = malloc(3 * np * sizeof *buf);
  mallocCheck(buf, e);
  long t = 0;
  int rc = net_get_params(n, buf, e);
  if (rc == 0)
    rc = net_get_adam(n, buf + np, buf + 2 * np, &t, e);
  if (rc == 0)
    rc = h5io_write(g, "params", H5T_NATIVE_FLOAT, buf, np, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "adam_m", H5T_NATIVE_FLOAT, buf + np, np, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "adam_v", H5T_NATIVE_FLOAT, buf + 2 * np, np, 0, 0, e);
  if (rc == 0)
    rc = i64_attr_(g, "adam_t", t, e);
  if (rc == 0)
    rc = i64_attr_(g, "activation", n->activation, e);
  free(buf);
  return rc;
}

/* held: a network whose state is the checkpoint's, copied within the backend instead. */
static int net_read_(hid_t g, struct net *n, const struct net *held, const char *file,
                     struct fox_err *e) {
  size_t np = n->n_params, d0, d1;
  FOX_TRY(h5io_dims(g, "params", &d0, &d1, file, e));
  if (d0 != np || d1 != 0)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint network has %zu parameters, the config "
                                  "makes %zu", file, d0, np);
  int64_t act;
  FOX_TRY(i64_read_(g, "activation", &act, file, e));
  if (act != n->activation)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint network was trained with activation %s, the "
                                  "config makes %s", file, fox_act_name((int)act),
                    fox_act_name(n->activation));
  if (held)
    return net_copy_state(n, held, e);
  float *buf = malloc(3 * np * sizeof *buf);
  mallocCheck(buf, e);
  int64_t t = 0;
  int rc = h5io_read(g, "params", H5T_NATIVE_FLOAT, buf, np, 0, file, e);
  if (rc == 0)
    rc = h5io_read(g, "adam_m", H5T_NATIVE_FLOAT, buf + np, np, 0, file, e);
  if (rc == 0)
    rc = h5io_read(g, "adam_v", H5T_NATIVE_FLOAT, buf + 2 * np, np, 0, file, e);
  if (rc == 0)
    rc = i64_read_(g, "adam_t", &t, file, e);
  if (rc == 0)
    rc = net_set_params(n, buf, e);
  if (rc == 0)
    rc = net_set_adam(n, buf + np, buf + 2 * np, (long)t, e);
  free(buf);
  return rc;
}

static int rng_write_(hid_t g, const struct rng *r, struct fox_err *e) {
  return h5io_write(g, "rng", H5T_NATIVE_UINT64, r->s, 4, 0, 0, e);
}

static int rng_read_(hid_t g, struct rng *r, const char *file, struct fox_err *e) {
  return h5io_read(g, "rng", H5T_NATIVE_UINT64, r->s, 4, 0, file, e);
}

/* The filled part of the replay ring, with its write position. */
struct replay_host_ {
  int32_t *bar;
  float *pf, *r;
  uint8_t *a, *term;
};

static void replay_host_free_(struct replay_host_ *h) {
  free(h->bar), free(h->pf), free(h->r), free(h->a), free(h->term);
}

static int replay_host_alloc_(struct replay_host_ *h, size_t n, struct fox_err *e) {
  n = n ? n : 1;
  h->bar = malloc(n * sizeof *h->bar);
  h->pf = malloc(n * 6 * sizeof *h->pf);
  h->r = malloc(n * sizeof *h->r);
  h->a = malloc(n);
  h->term = malloc(n);
  if (!h->bar || !h->pf || !h->r || !h->a || !h->term)
    return fox_errf(e, FOX_EFAIL, "checkpoint: out of memory for %zu transitions", n);
  return 0;
}

static int replay_write_body_(hid_t g, const struct replay *b, struct replay_host_ *h,
                              struct fox_err *e) {
  size_t n = b->size;
  FOX_TRY(replay_host_alloc_(h, n, e));
  FOX_TRY(replay_download(b, h->bar, h->pf, h->r, h->a, h->term, e));
  FOX_TRY(i64_attr_(g, "pos", (int64_t)b->pos, e));
  FOX_TRY(i64_attr_(g, "capacity", (int64_t)b->d.cap, e));
  FOX_TRY(h5io_write(g, "bar", H5T_NATIVE_INT32, h->bar, n, 0, 0, e));
  FOX_TRY(h5io_write(g, "portfolio", H5T_NATIVE_FLOAT, h->pf, n, 6, 0, e));
  FOX_TRY(h5io_write(g, "a", H5T_NATIVE_UINT8, h->a, n, 0, 0, e));
  FOX_TRY(h5io_write(g, "r", H5T_NATIVE_FLOAT, h->r, n, 0, 0, e));
  return h5io_write(g, "terminal", H5T_NATIVE_UINT8, h->term, n, 0, 0, e);
}

static int replay_write_(hid_t g, const struct replay *b, struct fox_err *e) {
  struct replay_host_ h = {0};
  int rc = replay_write_body_(g, b, &h, e);
  replay_host_free_(&h);
  return rc;
}

/* A transition's bar and the next one must be rows of this dataset: the ring rebuilds both
 * states from them. */
static int replay_bars_check_(const int32_t *bar, size_t n, size_t rows, const char *file,
                              struct fox_err *e) {
  for (size_t i = 0; i < n; i++)
    if (bar[i] < 0 || (size_t)bar[i] + 1 >= rows)
      return fox_errf(e, FOX_EDATA, "%s: /dqn/replay/bar[%zu] = %d: not a bar of this dataset "
                                    "(%zu rows, the next bar included)", file, i, (int)bar[i],
                      rows);
  return 0;
}

static int replay_read_body_(hid_t g, struct replay *b, const struct replay *held, size_t rows,
                             const char *file, struct replay_host_ *h, struct fox_err *e) {
  int64_t pos, cap;
  size_t n, d1;
  FOX_TRY(i64_read_(g, "pos", &pos, file, e));
  FOX_TRY(i64_read_(g, "capacity", &cap, file, e));
  FOX_TRY(h5io_dims(g, "a", &n, &d1, file, e));
  if ((size_t)cap != b->d.cap || n > b->d.cap || pos < 0 || (size_t)pos >= b->d.cap)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint replay (capacity %lld, %zu stored) does not "
                                  "fit dqn.buffer_size %zu", file, (long long)cap, n, b->d.cap);
  if (held && (held->size != n || held->pos != (size_t)pos))
    return fox_errf(e, FOX_EDATA, "%s: the ring held in memory (%zu at %zu) is not the "
                                  "checkpoint's (%zu at %lld)", file, held->size, held->pos, n,
                    (long long)pos);
  if (held)
    return replay_copy(b, held, e);
  FOX_TRY(replay_host_alloc_(h, n, e));
  FOX_TRY(h5io_read(g, "bar", H5T_NATIVE_INT32, h->bar, n, 0, file, e));
  FOX_TRY(h5io_read(g, "portfolio", H5T_NATIVE_FLOAT, h->pf, n, 6, file, e));
  FOX_TRY(h5io_read(g, "a", H5T_NATIVE_UINT8, h->a, n, 0, file, e));
  FOX_TRY(h5io_read(g, "r", H5T_NATIVE_FLOAT, h->r, n, 0, file, e));
  FOX_TRY(h5io_read(g, "terminal", H5T_NATIVE_UINT8, h->term, n, 0, file, e));
  FOX_TRY(replay_bars_check_(h->bar, n, rows, file, e));
  return replay_upload(b, n, (size_t)pos, h->bar, h->pf, h->r, h->a, h->term, e);
}

static int replay_read_(hid_t g, struct replay *b, const struct replay *held, size_t rows,
                        const char *file, struct fox_err *e) {
  struct replay_host_ h = {0};
  int rc = replay_read_body_(g, b, held, rows, file, &h, e);
  replay_host_free_(&h);
  return rc;
}

static int dqn_write_(hid_t g, const struct dqn *d, struct fox_err *e) {
  FOX_TRY(i64_attr_(g, "transitions", d->transitions, e));
  FOX_TRY(i64_attr_(g, "updates", d->updates, e));
  FOX_TRY(h5io_attr_write(g, "credit", H5T_NATIVE_DOUBLE, &d->credit, 1, e));
  FOX_TRY(rng_write_(g, &d->rng, e));
  IN_GROUP_(o, group_(g, "online", e), net_write_(o, &d->online, e));
  IN_GROUP_(t, group_(g, "target", e), net_write_(t, &d->target, e));
  IN_GROUP_(r, group_(g, "replay", e), replay_write_(r, &d->rb, e));
  return 0;
}

static int dqn_read_(hid_t g, struct dqn *d, const struct dqn *held, size_t rows,
                     const char *file, struct fox_err *e) {
  int64_t tr, up;
  FOX_TRY(i64_read_(g, "transitions", &tr, file, e));
  FOX_TRY(i64_read_(g, "updates", &up, file, e));
  FOX_TRY(h5io_attr_read(g, "credit", H5T_NATIVE_DOUBLE, &d->credit, 1, file, e));
  d->transitions = (long)tr;
  d->updates = (long)up;
  FOX_TRY(rng_read_(g, &d->rng, file, e));
  IN_GROUP_(o, open_(g, "online", file, e),
            net_read_(o, &d->online, held ? &held->online : NULL, file, e));
  IN_GROUP_(t, open_(g, "target", file, e),
            net_read_(t, &d->target, held ? &held->target : NULL, file, e));
  IN_GROUP_(r, open_(g, "replay", file, e),
            replay_read_(r, &d->rb, held ? &held->rb : NULL, rows, file, e));
  return 0;
}

/* The rollout filled so far (t of n_steps vector steps), through host copies. */
struct rollout_host_ {
  float *obs, *logp, *values, *rewards;
  uint8_t *actions, *dones;
};

static void rollout_host_free_(struct rollout_host_ *h) {
  free(h->obs), free(h->logp), free(h->values), free(h->rewards), free(h->actions);
  free(h->dones);
}

static int rollout_host_alloc_(struct rollout_host_ *h, size_t n, int dim, struct fox_err *e) {
  n = n ? n : 1;
  h->obs = malloc(n * (size_t)dim * sizeof(float));
  h->logp = malloc(n * sizeof(float));
  h->values = malloc(n * sizeof(float));
  h->rewards = malloc(n * sizeof(float));
  h->actions = malloc(n);
  h->dones = malloc(n);
  if (!h->obs || !h->logp || !h->values || !h->rewards || !h->actions || !h->dones)
    return fox_errf(e, FOX_EFAIL, "checkpoint: out of memory for a rollout of %zu", n);
  return 0;
}

/* Host <-> backend copies of the rollout's first n entries (to_host: download). */
static int rollout_copy_(const struct ppo *p, struct rollout_host_ *h, size_t n, int to_host,
                         struct fox_err *e) {
  const struct backend *be = p->be;
  struct {
    void *host, *dev;
    size_t bytes;
  } x[] = {{h->obs, p->ro.obs, n * (size_t)p->dim * sizeof(float)},
           {h->logp, p->ro.logp, n * sizeof(float)},
           {h->values, p->ro.values, n * sizeof(float)},
           {h->rewards, p->ro.rewards, n * sizeof(float)},
           {h->actions, p->ro.actions, n},
           {h->dones, p->ro.dones, n}};
  for (size_t i = 0; i < sizeof x / sizeof *x; i++)
    FOX_TRY(to_host ? be->mem_d2h(x[i].host, x[i].dev, x[i].bytes, e)
                    : be->mem_h2d(x[i].dev, x[i].host, x[i].bytes, e));
  return 0;
}

static int ppo_write_body_(hid_t g, const struct ppo *p, struct rollout_host_ *h,
                           struct fox_err *e) {
  size_t n = (size_t)p->t * (size_t)p->n_envs;
  FOX_TRY(i64_attr_(g, "t", p->t, e));
  FOX_TRY(i64_attr_(g, "updates", p->updates, e));
  FOX_TRY(i64_attr_(g, "num_updates", p->num_updates, e));
  FOX_TRY(i64_attr_(g, "value_loss", p->cfg.value_loss, e));
  FOX_TRY(rng_write_(g, &p->rng, e));
  IN_GROUP_(a, group_(g, "actor", e), net_write_(a, &p->actor, e));
  IN_GROUP_(c, group_(g, "critic", e), net_write_(c, &p->critic, e));
  FOX_TRY(rollout_host_alloc_(h, n, p->dim, e));
  FOX_TRY(rollout_copy_(p, h, n, 1, e));
  FOX_TRY(h5io_write(g, "obs", H5T_NATIVE_FLOAT, h->obs, n, (size_t)p->dim, 0, e));
  FOX_TRY(h5io_write(g, "logp", H5T_NATIVE_FLOAT, h->logp, n, 0, 0, e));
  FOX_TRY(h5io_write(g, "values", H5T_NATIVE_FLOAT, h->values, n, 0, 0, e));
  FOX_TRY(h5io_write(g, "rewards", H5T_NATIVE_FLOAT, h->rewards, n, 0, 0, e));
  FOX_TRY(h5io_write(g, "actions", H5T_NATIVE_UINT8, h->actions, n, 0, 0, e));
  return h5io_write(g, "dones", H5T_NATIVE_UINT8, h->dones, n, 0, 0, e);
}

static int ppo_write_(hid_t g, const struct ppo *p, struct fox_err *e) {
  struct rollout_host_ h = {0};
  int rc = ppo_write_body_(g, p, &h, e);
  rollout_host_free_(&h);
  return rc;
}

/* The rollout's first p->t vector steps, onto the backend (from held's, when given: a rollout
 * of the same shape standing at the same step). */
static int rollout_arrays_read_(hid_t g, struct ppo *p, const struct ppo *held, const char *file,
                                struct rollout_host_ *h, struct fox_err *e) {
  size_t n = (size_t)p->t * (size_t)p->n_envs;
  if (held) {
    if (held->t != p->t || held->n_envs != p->n_envs || held->dim != p->dim)
      return fox_errf(e, FOX_EDATA, "%s: the rollout held in memory (step %d) is not the "
                                    "checkpoint's (step %d)", file, held->t, p->t);
    const struct backend *be = p->be;
    FOX_TRY(be->mem_copy(p->ro.obs, held->ro.obs, n * (size_t)p->dim * sizeof(float), e));
    FOX_TRY(be->mem_copy(p->ro.logp, held->ro.logp, n * sizeof(float), e));
    FOX_TRY(be->mem_copy(p->ro.values, held->ro.values, n * sizeof(float), e));
    FOX_TRY(be->mem_copy(p->ro.rewards, held->ro.rewards, n * sizeof(float), e));
    FOX_TRY(be->mem_copy(p->ro.actions, held->ro.actions, n, e));
    return be->mem_copy(p->ro.dones, held->ro.dones, n, e);
  }
  FOX_TRY(rollout_host_alloc_(h, n, p->dim, e));
  FOX_TRY(h5io_read(g, "obs", H5T_NATIVE_FLOAT, h->obs, n, (size_t)p->dim, file, e));
  FOX_TRY(h5io_read(g, "logp", H5T_NATIVE_FLOAT, h->logp, n, 0, file, e));
  FOX_TRY(h5io_read(g, "values", H5T_NATIVE_FLOAT, h->values, n, 0, file, e));
  FOX_TRY(h5io_read(g, "rewards", H5T_NATIVE_FLOAT, h->rewards, n, 0, file, e));
  FOX_TRY(h5io_read(g, "actions", H5T_NATIVE_UINT8, h->actions, n, 0, file, e));
  FOX_TRY(h5io_read(g, "dones", H5T_NATIVE_UINT8, h->dones, n, 0, file, e));
  return rollout_copy_(p, h, n, 0, e);
}

static int ppo_read_body_(hid_t g, struct ppo *p, const struct ppo *held, const char *file,
                          struct rollout_host_ *h, struct fox_err *e) {
  int64_t t, up, nu;
  FOX_TRY(i64_read_(g, "t", &t, file, e));
  FOX_TRY(i64_read_(g, "updates", &up, file, e));
  FOX_TRY(i64_read_(g, "num_updates", &nu, file, e));
  if (t < 0 || t >= p->cfg.n_steps || nu != p->num_updates)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint rollout (step %lld, %lld updates planned) "
                                  "does not fit the config (n_steps %d, %ld updates)", file,
                    (long long)t, (long long)nu, p->cfg.n_steps, p->num_updates);
  /* The value loss the critic was trained with: a checkpoint written before ppo.value_loss
   * existed was trained with max, and one resumed under a newer default must not switch its
   * loss half way without a word. */
  int64_t vl = FOX_VLOSS_MAX;
  htri_t has = H5Aexists(g, "value_loss");
  if (has < 0)
    return fox_errf(e, FOX_EDATA, "%s: cannot read the checkpoint's value_loss", file);
  if (has > 0)
    FOX_TRY(i64_read_(g, "value_loss", &vl, file, e));
  if (vl != p->cfg.value_loss) {
    static const char *const names[] = {"max", "clipped", "unclipped"};
    return fox_errf(e, FOX_EDATA, "%s: checkpoint critic was trained with ppo.value_loss %s, "
                                  "the config makes %s (set ppo.value_loss: %s to resume it)",
                    file, vl >= 0 && vl <= 2 ? names[vl] : "?", names[p->cfg.value_loss],
                    vl >= 0 && vl <= 2 ? names[vl] : "?");
  }
  p->t = (int)t;
  p->updates = (long)up;
  FOX_TRY(rng_read_(g, &p->rng, file, e));
  IN_GROUP_(a, open_(g, "actor", file, e),
            net_read_(a, &p->actor, held ? &held->actor : NULL, file, e));
  IN_GROUP_(c, open_(g, "critic", file, e),
            net_read_(c, &p->critic, held ? &held->critic : NULL, file, e));
  return rollout_arrays_read_(g, p, held, file, h, e);
}

static int ppo_read_(hid_t g, struct ppo *p, const struct ppo *held, const char *file,
                     struct fox_err *e) {
  struct rollout_host_ h = {0};
  int rc = ppo_read_body_(g, p, held, file, &h, e);
  rollout_host_free_(&h);
  return rc;
}

/* The environments as the backend holds them, and the states the agent acts on next. */
static int venv_write_(hid_t g, struct trial *t, struct fox_err *e) {
  size_t n = (size_t)t->cfg.num_envs;
  struct env_state *env = malloc(n * sizeof *env);
  struct env_cursor *cur = malloc(n * sizeof *cur);
  struct reward_stats *rs = malloc(n * sizeof *rs);
  size_t dim = (size_t)FOX_STATE_DIM(&t->venv.p);
  float *states = malloc(n * dim * sizeof *states);
  int rc = env && cur && rs && states ? 0 : fox_errf(e, FOX_EFAIL, "checkpoint: out of memory");
  if (rc == 0)
    rc = venv_read_env(&t->venv, env, cur, e);
  if (rc == 0)
    rc = venv_read(&t->venv, states, NULL, NULL, NULL, NULL, e);
  if (rc == 0)
    rc = venv_read_rstats(&t->venv, rs, e);
  if (rc == 0)
    rc = h5io_write(g, "env", H5T_NATIVE_UINT8, env, n * sizeof *env, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "cursor", H5T_NATIVE_UINT8, cur, n * sizeof *cur, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "reward_stats", H5T_NATIVE_UINT8, rs, n * sizeof *rs, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "states", H5T_NATIVE_FLOAT, states, n, dim, 0, e);
  free(env), free(cur), free(rs), free(states);
  return rc;
}

/* An environment's bar and episode end must lie in this trial's train split: the next step
 * reads the bar after them. */
static int cursor_check_(const struct env_cursor *c, const struct venv_shape *v, size_t i,
                         const char *file, struct fox_err *e) {
  if (c->t < v->split_b || c->t >= v->split_e - 1 || c->end <= c->t || c->end > v->split_e - 1)
    return fox_errf(e, FOX_EDATA, "%s: /venv/cursor of environment %zu (bar %d, episode end %d) "
                                  "is outside the train split [%d, %d)", file, i, (int)c->t,
                    (int)c->end, (int)v->split_b, (int)v->split_e);
  return 0;
}

static int venv_read_(hid_t g, struct trial *t, const char *file, struct fox_err *e) {
  size_t n = (size_t)t->cfg.num_envs, d0, d1;
  FOX_TRY(h5io_dims(g, "env", &d0, &d1, file, e));
  if (d0 != n * sizeof(struct env_state))
    return fox_errf(e, FOX_EDATA, "%s: checkpoint environments (%zu bytes) do not fit %zu "
                                  "environments of this build", file, d0, n);
  struct env_state *env = malloc(n * sizeof *env);
  struct env_cursor *cur = malloc(n * sizeof *cur);
  struct reward_stats *rs = malloc(n * sizeof *rs);
  size_t dim = (size_t)FOX_STATE_DIM(&t->venv.p);
  float *states = malloc(n * dim * sizeof *states);
  int rc = env && cur && rs && states ? 0 : fox_errf(e, FOX_EFAIL, "checkpoint: out of memory");
  if (rc == 0)
    rc = h5io_read(g, "env", H5T_NATIVE_UINT8, env, n * sizeof *env, 0, file, e);
  if (rc == 0)
    rc = h5io_read(g, "cursor", H5T_NATIVE_UINT8, cur, n * sizeof *cur, 0, file, e);
  if (rc == 0)
    rc = h5io_read(g, "reward_stats", H5T_NATIVE_UINT8, rs, n * sizeof *rs, 0, file, e);
  if (rc == 0)
    rc = h5io_read(g, "states", H5T_NATIVE_FLOAT, states, n, dim, file, e);
  for (size_t i = 0; rc == 0 && i < n; i++)
    rc = cursor_check_(&cur[i], &t->venv.shape, i, file, e);
  if (rc == 0)
    rc = venv_write_env(&t->venv, env, cur, rs, e);
  if (rc == 0)
    rc = venv_write_states(&t->venv, states, e);
  free(env), free(cur), free(rs), free(states);
  return rc;
}

/* The curve so far: epoch, seconds, env-steps/s, loss, then the metrics. */
#define CURVE_COLS_ (4 + FOX_NMETRICS)

static int curve_write_(hid_t g, const struct trial_result *r, struct fox_err *e) {
  size_t n = (size_t)r->epochs_done;
  double *rows = malloc((n ? n : 1) * CURVE_COLS_ * sizeof *rows);
  mallocCheck(rows, e);
  for (size_t i = 0; i < n; i++) {
    const struct epoch_row *c = &r->curve[i];
    double *x = rows + i * CURVE_COLS_;
    x[0] = c->epoch, x[1] = c->seconds, x[2] = c->env_steps_per_s, x[3] = c->loss;
    for (int m = 0; m < FOX_NMETRICS; m++)
      x[4 + m] = metrics_get(&c->eval, m);
  }
  int rc = h5io_write(g, "curve", H5T_NATIVE_DOUBLE, rows, n, CURVE_COLS_, 0, e);
  free(rows);
  FOX_TRY(rc);
  /* Apart from the curve, so that a checkpoint from before populations still reads. */
  int *members = malloc((n ? n : 1) * sizeof *members);
  mallocCheck(members, e);
  for (size_t i = 0; i < n; i++)
    members[i] = r->curve[i].members;
  rc = h5io_write(g, "curve_members", H5T_NATIVE_INT, members, n, 0, 0, e);
  free(members);
  return rc;
}

static int curve_read_(hid_t g, struct trial *t, const char *file, struct fox_err *e) {
  size_t n, d1;
  FOX_TRY(h5io_dims(g, "curve", &n, &d1, file, e));
  if (n > (size_t)t->cfg.epochs || d1 != CURVE_COLS_)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint curve [%zu, %zu] does not fit %d epochs", file,
                    n, d1, t->cfg.epochs);
  double *rows = malloc((n ? n : 1) * CURVE_COLS_ * sizeof *rows);
  mallocCheck(rows, e);
  int rc = h5io_read(g, "curve", H5T_NATIVE_DOUBLE, rows, n, CURVE_COLS_, file, e);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    struct epoch_row *c = &t->r.curve[i];
    const double *x = rows + i * CURVE_COLS_;
    c->epoch = (int)x[0], c->seconds = x[1], c->env_steps_per_s = x[2], c->loss = x[3];
    for (int m = 0; m < FOX_NMETRICS; m++)
      metrics_set(&c->eval, m, x[4 + m]);
  }
  free(rows);
  FOX_TRY(rc);
  if (h5io_exists(g, "curve_members") == 1) {
    int *members = malloc((n ? n : 1) * sizeof *members);
    mallocCheck(members, e);
    rc = h5io_read(g, "curve_members", H5T_NATIVE_INT, members, n, 0, file, e);
    for (size_t i = 0; rc == 0 && i < n; i++)
      t->r.curve[i].members = members[i];
    free(members);
    FOX_TRY(rc);
  }
  t->r.epochs_done = (int)n;
  if (n)
    t->r.final = t->r.curve[n - 1].eval;
  return rc;
}

/* The buffers hold rewards at the scale the checkpoint records: the trial's must be the same. */
static int scale_check_(const struct trial *t, hid_t g, const char *file, struct fox_err *e) {
  double scale;
  FOX_TRY(h5io_attr_read(g, "reward_scale", H5T_NATIVE_DOUBLE, &scale, 1, file, e));
  if (scale != t->cfg.market.reward_scale)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint rewards were scaled by %.17g, the config now "
                                  "makes reward.scale %.17g", file, scale,
                    t->cfg.market.reward_scale);
  return 0;
}

int trial_state_write(struct trial *t, hid_t g, struct fox_err *e) {
  FOX_TRY(i64_attr_(g, "checkpoint_version", CKPT_VERSION, e));
  FOX_TRY(i64_attr_(g, "algo", t->ag.algo, e));
  FOX_TRY(i64_attr_(g, "transitions", t->r.transitions, e));
  /* The scale of the rewards in the replay buffer or rollout. */
  FOX_TRY(h5io_attr_write(g, "reward_scale", H5T_NATIVE_DOUBLE, &t->cfg.market.reward_scale, 1,
                          e));
  FOX_TRY(i64_attr_(g, "status", t->r.status, e));
  FOX_TRY(h5io_attr_write_str(g, "reason", t->r.reason, e));
  FOX_TRY(curve_write_(g, &t->r, e));
  IN_GROUP_(v, group_(g, "venv", e), venv_write_(v, t, e));
  if (t->ag.algo == FOX_ALGO_DQN)
    IN_GROUP_(a, group_(g, "dqn", e), dqn_write_(a, &t->ag.dqn, e));
  else
    IN_GROUP_(a, group_(g, "ppo", e), ppo_write_(a, &t->ag.ppo, e));
  return 0;
}

/* held: the trial the checkpoint was made of, its agent's arrays copied instead of uploaded. */
static int read_(struct trial *t, hid_t g, const char *file, const struct trial *held,
                 struct fox_err *e) {
  int64_t ver, algo, tr, st;
  FOX_TRY(i64_read_(g, "checkpoint_version", &ver, file, e));
  FOX_TRY(i64_read_(g, "algo", &algo, file, e));
  if (ver != CKPT_VERSION || algo != t->ag.algo)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint version %lld of a %s agent; this trial is "
                                  "version %d, %s", file, (long long)ver,
                    algo == FOX_ALGO_PPO ? "ppo" : "dqn", CKPT_VERSION,
                    t->ag.algo == FOX_ALGO_PPO ? "ppo" : "dqn");
  FOX_TRY(i64_read_(g, "transitions", &tr, file, e));
  FOX_TRY(scale_check_(t, g, file, e));
  FOX_TRY(i64_read_(g, "status", &st, file, e));
  FOX_TRY(h5io_attr_read_str(g, "reason", t->r.reason, sizeof t->r.reason, file, e));
  t->owner[0] = t->owner[1] = -1;
  if (H5Aexists(g, "owner") > 0)
    FOX_TRY(h5io_attr_read(g, "owner", H5T_NATIVE_INT, t->owner, 2, file, e));
  t->r.transitions = (long)tr;
  t->r.status = (int)st;
  FOX_TRY(curve_read_(g, t, file, e));
  IN_GROUP_(v, open_(g, "venv", file, e), venv_read_(v, t, file, e));
  if (t->ag.algo == FOX_ALGO_DQN)
    IN_GROUP_(a, open_(g, "dqn", file, e),
              dqn_read_(a, &t->ag.dqn, held ? &held->ag.dqn : NULL, t->ds->n, file, e));
  else
    IN_GROUP_(a, open_(g, "ppo", file, e),
              ppo_read_(a, &t->ag.ppo, held ? &held->ag.ppo : NULL, file, e));
  return agent_clock_put(&t->ag, e);
}

int trial_state_read(struct trial *t, hid_t g, const char *file, struct fox_err *e) {
  return read_(t, g, file, NULL, e);
}

static int save_body_(hid_t f, const void *ctx, struct fox_err *e) {
  FOX_TRY(h5io_attr_write_str(f, "kind", "checkpoint", e));
  const struct trial *t = ctx;
  if (t->owner[0] >= 0)
    FOX_TRY(h5io_attr_write(f, "owner", H5T_NATIVE_INT, t->owner, 2, e));
  return trial_state_write((struct trial *)ctx, f, e);
}

int trial_state_save(struct trial *t, const char *path, struct fox_err *e) {
  return h5io_create_atomic(path, save_body_, t, e);
}

int trial_state_load(struct trial *t, const char *path, struct fox_err *e) {
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a foxopt trial checkpoint", &f, e));
  int rc = trial_state_read(t, f, path, e);
  H5Fclose(f);
  return rc;
}

int trial_state_describe(hid_t f, const char *path, FILE *out, struct fox_err *e) {
  int64_t ver, algo, tr, st;
  double scale;
  char reason[512];
  FOX_TRY(i64_read_(f, "checkpoint_version", &ver, path, e));
  FOX_TRY(i64_read_(f, "algo", &algo, path, e));
  FOX_TRY(i64_read_(f, "transitions", &tr, path, e));
  FOX_TRY(i64_read_(f, "status", &st, path, e));
  FOX_TRY(h5io_attr_read(f, "reward_scale", H5T_NATIVE_DOUBLE, &scale, 1, path, e));
  FOX_TRY(h5io_attr_read_str(f, "reason", reason, sizeof reason, path, e));
  if (algo != FOX_ALGO_DQN && algo != FOX_ALGO_PPO)
    return fox_errf(e, FOX_EDATA, "%s: attribute 'algo' is %lld, expected %d (dqn) or %d (ppo)",
                    path, (long long)algo, FOX_ALGO_DQN, FOX_ALGO_PPO);
  size_t n, d1;
  FOX_TRY(h5io_dims(f, "curve", &n, &d1, path, e));
  if (d1 != CURVE_COLS_)
    return fox_errf(e, FOX_EDATA, "%s: /curve has %zu columns, expected %d", path, d1,
                    CURVE_COLS_);
  double *rows = malloc((n ? n : 1) * CURVE_COLS_ * sizeof *rows);
  mallocCheck(rows, e);
  int rc = h5io_read(f, "curve", H5T_NATIVE_DOUBLE, rows, n, CURVE_COLS_, path, e);
  if (rc == 0) {
    fprintf(out, "%s: foxopt trial checkpoint (version %lld%s), %s agent, %zu epoch%s done, "
                 "%lld transitions\n", path, (long long)ver,
            ver == CKPT_VERSION ? "" : ", not this foxopt's", algo == FOX_ALGO_PPO ? "ppo" : "dqn",
            n, n == 1 ? "" : "s", (long long)tr);
    fprintf(out, "  status         %s%s%s\n", st == FOX_TRIAL_FAILED ? "failed" : "ok",
            reason[0] ? ": " : "", reason);
    fprintf(out, "  reward scale   %.9g (of the rewards in its buffers)\n", scale);
    for (size_t i = 0; i < n; i++) {
      const double *x = rows + i * CURVE_COLS_;
      fprintf(out, "  epoch %-8.0f loss %.6g, %.0f env-steps/s", x[0], x[3], x[2]);
      for (int m = 0; m < FOX_NMETRICS; m++)
        if (strcmp(metrics_names[m], "sharpe") == 0 || strcmp(metrics_names[m], "total_return") == 0)
          fprintf(out, ", %s %.6g", metrics_names[m], x[4 + m]);
      fputc('\n', out);
    }
  }
  free(rows);
  return rc;
}

int trial_state_image(struct trial *t, void **buf, size_t *len, struct fox_err *e) {
  return h5io_image_create(save_body_, t, buf, len, e);
}

/* read(t, the image's file, held) */
static int from_image_(struct trial *t, const void *buf, size_t len, const char *name,
                       const struct trial *held,
                       int (*read)(struct trial *, hid_t, const char *, const struct trial *,
                                   struct fox_err *),
                       struct fox_err *e) {
  if (held && (held->ag.algo != t->ag.algo || held->be != t->be))
    return fox_errf(e, FOX_EDATA, "%s: the trial held in memory is of another agent or "
                                  "backend", name);
  hid_t f;
  FOX_TRY(h5io_image_open(buf, len, name, &f, e));
  int rc = read(t, f, name, held, e);
  H5Fclose(f);
  return rc;
}

int trial_state_load_image(struct trial *t, const void *buf, size_t len, const char *name,
                           const struct trial *held, struct fox_err *e) {
  return from_image_(t, buf, len, name, held, read_, e);
}

/* The rollout of a PPO checkpoint without its networks: t, then the arrays. */
static int rollout_read_(hid_t g, struct ppo *p, const struct ppo *held, const char *file,
                         struct fox_err *e) {
  int64_t t;
  FOX_TRY(i64_read_(g, "t", &t, file, e));
  if (t < 0 || t >= p->cfg.n_steps)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint rollout step %lld does not fit ppo.n_steps %d",
                    file, (long long)t, p->cfg.n_steps);
  p->t = (int)t;
  struct rollout_host_ h = {0};
  int rc = rollout_arrays_read_(g, p, held, file, &h, e);
  rollout_host_free_(&h);
  return rc;
}

static int replay_in_(hid_t dqn, struct trial *t, const struct replay *held, const char *file,
                      struct fox_err *e) {
  IN_GROUP_(r, open_(dqn, "replay", file, e),
            replay_read_(r, &t->ag.dqn.rb, held, t->ds->n, file, e));
  return 0;
}

static int buffers_read_(struct trial *t, hid_t f, const char *file, const struct trial *held,
                         struct fox_err *e) {
  int64_t algo;
  FOX_TRY(i64_read_(f, "algo", &algo, file, e));
  if (algo != t->ag.algo)
    return fox_errf(e, FOX_EDATA, "%s: checkpoint of another agent", file);
  FOX_TRY(scale_check_(t, f, file, e));
  t->owner[0] = t->owner[1] = -1;
  if (H5Aexists(f, "owner") > 0)
    FOX_TRY(h5io_attr_read(f, "owner", H5T_NATIVE_INT, t->owner, 2, file, e));
  IN_GROUP_(v, open_(f, "venv", file, e), venv_read_(v, t, file, e));
  if (t->ag.algo == FOX_ALGO_DQN) {
    IN_GROUP_(a, open_(f, "dqn", file, e),
              replay_in_(a, t, held ? &held->ag.dqn.rb : NULL, file, e));
  } else {
    IN_GROUP_(a, open_(f, "ppo", file, e),
              rollout_read_(a, &t->ag.ppo, held ? &held->ag.ppo : NULL, file, e));
  }
  return agent_clock_put(&t->ag, e);
}

int trial_state_load_buffers(struct trial *t, const void *buf, size_t len, const char *name,
                             const struct trial *held, struct fox_err *e) {
  return from_image_(t, buf, len, name, held, buffers_read_, e);
}
