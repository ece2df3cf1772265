/* Populations: who may train together (shape and phase), joining and leaving, and an epoch of
 * every member's training in chunks of vector steps. */
#include "train/pop.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "train/trial.h"

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int same_layers_(const int *a, int na, const int *b, int nb) {
  return na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0;
}

int pop_shape_equal(const struct config *a, const struct config *b) {
  if (a->algo != b->algo || a->num_envs != b->num_envs ||
      a->steps_per_epoch != b->steps_per_epoch || a->graphs != b->graphs ||
      a->backend != b->backend || strcmp(a->data_path, b->data_path) != 0)
    return 0;
  if (a->algo == FOX_ALGO_DQN) {
    const struct dqn_config *x = &a->dqn, *y = &b->dqn;
    return same_layers_(x->hidden, x->n_hidden, y->hidden, y->n_hidden) &&
           x->activation == y->activation && x->batch_size == y->batch_size &&
           x->buffer_size == y->buffer_size && x->learning_starts == y->learning_starts &&
           x->train_freq == y->train_freq && x->double_q == y->double_q &&
           x->dueling == y->dueling;
  }
  const struct ppo_config *x = &a->ppo, *y = &b->ppo;
  return same_layers_(x->hidden, x->n_hidden, y->hidden, y->n_hidden) &&
         x->activation == y->activation && x->n_steps == y->n_steps && x->epochs == y->epochs &&
         x->minibatches == y->minibatches;
}

int pop_phase_equal(const struct trial *a, const struct trial *b, char *why, size_t n) {
  if (a->ag.algo == FOX_ALGO_PPO) {
    if (a->ag.ppo.t == b->ag.ppo.t)
      return 1;
    snprintf(why, n, "their rollouts stand at steps %d and %d", a->ag.ppo.t, b->ag.ppo.t);
    return 0;
  }
  /* The updates a step makes follow from the transitions until learning starts, then from
   * train_freq's credit alone. */
  const struct dqn *x = &a->ag.dqn, *y = &b->ag.dqn;
  long ls = x->cfg.learning_starts;
  if (x->transitions == y->transitions ||
      (x->transitions >= ls && y->transitions >= ls && x->credit == y->credit))
    return 1;
  snprintf(why, n, "after %ld and %ld transitions their updates fall on other steps",
           x->transitions, y->transitions);
  return 0;
}

void pop_init(struct pop *p, const struct backend *be, int cap) {
  memset(p, 0, sizeof *p);
  p->be = be;
  p->cap = cap < 1 ? 1 : cap > FOX_POP_MAX ? FOX_POP_MAX : cap;
}

static const struct trial *any_(const struct pop *p) {
  for (int k = 0; k < p->cap; k++)
    if (p->m[k])
      return p->m[k];
  return NULL;
}

int pop_add(struct pop *p, struct trial *t, struct fox_err *e) {
  int slot = -1;
  for (int k = 0; k < p->cap && slot < 0; k++)
    if (!p->m[k])
      slot = k;
  if (slot < 0)
    return fox_errf(e, FOX_EUSAGE, "population: all %d slots are taken", p->cap);
  const struct trial *o = any_(p);
  char why[160];
  if (o && (!pop_shape_equal(&o->cfg, &t->cfg) || t->be != p->be))
    return fox_errf(e, FOX_EUSAGE, "population: a trial of another shape cannot join");
  if (o && !pop_phase_equal(o, t, why, sizeof why))
    return fox_errf(e, FOX_EUSAGE, "population: a trial out of phase cannot join: %s", why);
  /* The graphs hold the members' steps: a new member is a new graph. */
  chunk_cache_free(p);
  p->m[slot] = t;
  p->live++;
  return 0;
}

void pop_remove(struct pop *p, const struct trial *t) {
  for (int k = 0; k < p->cap; k++)
    if (p->m[k] == t) {
      chunk_cache_free(p);
      p->m[k] = NULL;
      p->live--;
    }
}

static void share_counts_(struct pop *p, const struct backend_counts *c) {
  counters_add(&p->counts, c);
  int i = 0;
  for (int k = 0; k < p->cap; k++) {
    struct trial *t = p->m[k];
    if (!t)
      continue;
    struct backend_counts s = counters_share(c, i, p->live);
    counters_add(&t->r.train_counts, &s);
    t->r.pop_members = p->live;
    t->r.graphs_captured += p->chunks.captured - p->seen_captured;
    t->r.graphs_replayed += p->chunks.replayed - p->seen_replayed;
    i++;
  }
  p->seen_captured = p->chunks.captured;
  p->seen_replayed = p->chunks.replayed;
}

/* The chunks of an epoch: never a wait for the device (launched one by one, or as graphs). */
static int steps_(struct pop *p, const volatile sig_atomic_t *stop, struct fox_err *e) {
  const struct trial *o = any_(p);
  long vec = o->vec_steps;
  int n = o->cfg.num_envs;
  for (long k = 0, steps; k < vec; k += steps) {
    if (stop && *stop)
      return fox_errf(e, FOX_ESTOP, "trial stopped by a signal in epoch %d",
                      o->r.epochs_done + 1);
    steps = chunk_steps(p, vec - k);
    FOX_TRY(chunk_run(p, steps, e));
    for (int j = 0; j < p->cap; j++)
      if (p->m[j])
        p->m[j]->r.transitions += steps * n;
  }
  return 0;
}

int pop_train_epoch(struct pop *p, const volatile sig_atomic_t *stop, double *seconds,
                    struct fox_err *e) {
  if (!p->live)
    return fox_errf(e, FOX_EUSAGE, "population: no member to train");
  double t0 = now_();
  struct backend_counts c = counters_take(); /* whatever the thread did before */
  int rc = steps_(p, stop, e);
  /* One read of each member's losses and clock, which says whether a loss went non-finite
   * and when. */
  for (int k = 0; rc == 0 && k < p->cap; k++) {
    struct trial *t = p->m[k];
    if (!t)
      continue;
    struct agent_stats st;
    rc = agent_take(&t->ag, &st, e);
    t->loss = st.loss;
    if (rc == 0 && st.bad_transitions)
      trial_fail(t, "diverged: the loss is not finite in epoch %d after %ld transitions",
                 t->r.epochs_done + 1, st.bad_transitions);
  }
  c = counters_take();
  share_counts_(p, &c);
  if (rc == 0)
    p->epochs++;
  *seconds = now_() - t0;
  return rc;
}

void pop_free(struct pop *p) {
  if (p->be)
    chunk_cache_free(p);
  memset(p, 0, sizeof *p);
}
