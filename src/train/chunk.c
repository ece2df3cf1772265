/* The training steps of a population and their chunks (chunk.h): each member's host side of a
 * step (the environments' state buffers swap, the agent's counters advance) always runs; the
 * device side runs when the step is issued, which a replayed graph has done instead. */
#include "train/chunk.h"

#include <string.h>

#include "backend/pop_ops.h"
#include "train/pop.h"
#include "train/trial.h"

/* Every member t of population p, in slot order. */
#define EACH_(p, t)                                                                             \
  for (int k_ = 0; k_ < (p)->cap; k_++)                                                         \
    for (struct trial *t = (p)->m[k_]; t; t = NULL)

/* The first member: every member's shape and phase is its. */
static const struct trial *first_(const struct pop *p) {
  for (int k = 0; k < p->cap; k++)
    if (p->m[k])
      return p->m[k];
  return NULL;
}

/* Every member's environment step (the device side of venv_step): one launch with the
 * backend's table, each member's venv_run without. */
static int envs_run_(struct pop *p, int out, struct fox_err *e) {
  if (p->chunks.table)
    return p->be->pops->env_step(p->chunks.table, first_(p)->venv.states, out, e);
  EACH_(p, t)
  FOX_TRY(venv_run(&t->venv, out, e));
  return 0;
}

/* One DQN vector step of every member: act, step the environments, store and learn (the
 * updates now due, the same for every member: they are in phase). */
static int dqn_step_(struct pop *p, int issue, struct fox_err *e) {
  int out = VENV_STATES | VENV_NEXT, due = -1;
  const struct pop_ops *pops = p->be->pops;
  void *tab = p->chunks.table;
  if (issue && tab) {
    FOX_TRY(pops->dqn_act(tab, first_(p)->venv.states, e));
  } else if (issue) {
    EACH_(p, t)
    FOX_TRY(dqn_act(&t->ag.dqn, t->venv.states, t->venv.shape.num_envs, t->venv.actions, e));
  }
  EACH_(p, t)
  venv_swap(&t->venv, out);
  if (issue)
    FOX_TRY(envs_run_(p, out, e));
  EACH_(p, t) {
    int d = dqn_plan(&t->ag.dqn, t->venv.shape.num_envs);
    if (due >= 0 && d != due)
      return fox_errf(e, FOX_EFAIL, "population: members out of phase (%d and %d updates in "
                                    "one step)", due, d);
    due = d;
  }
  if (!issue)
    return 0;
  /* With the backend's table, every member's ring takes the step in one launch, then each
   * update runs for all of them at once: each member's operations in its own order. */
  if (tab) {
    FOX_TRY(pops->dqn_store(tab, first_(p)->venv.states_prev, e));
    for (int k = 0; k < due; k++)
      FOX_TRY(pops->dqn_update(tab, e));
    return 0;
  }
  EACH_(p, t) {
    struct venv *v = &t->venv;
    FOX_TRY(dqn_learn(&t->ag.dqn, v->shape.num_envs, due, v->bars, v->states_prev,
                      v->next_states, v->actions, v->rewards, v->dones, e));
  }
  return 0;
}

/* One PPO vector step of every member; the update runs when the rollout is full (every
 * member's at once: they are in phase). */
static int ppo_step_(struct pop *p, int issue, struct fox_err *e) {
  int out = VENV_STATES | VENV_NEXT;
  const struct pop_ops *pops = p->be->pops;
  void *tab = p->chunks.table;
  const struct trial *o = first_(p);
  int t = o->ag.ppo.t;
  if (issue && tab) {
    FOX_TRY(pops->ppo_act(tab, o->venv.states, t, e));
  } else if (issue) {
    EACH_(p, m)
    FOX_TRY(ppo_act(&m->ag.ppo, m->venv.states, m->venv.actions, e));
  }
  EACH_(p, m) {
    venv_swap(&m->venv, out);
    if (!issue)
      ppo_plan(&m->ag.ppo);
  }
  if (!issue)
    return 0;
  FOX_TRY(envs_run_(p, out, e));
  if (tab) {
    FOX_TRY(pops->ppo_observe(tab, t, e));
    if (t + 1 >= o->cfg.ppo.n_steps) /* the rollouts are full: every member's update */
      FOX_TRY(pops->ppo_update(tab, o->venv.states, e));
    EACH_(p, m)
    ppo_plan(&m->ag.ppo); /* the host's side of the step (and of the update) */
    return 0;
  }
  EACH_(p, m) {
    struct venv *v = &m->venv;
    FOX_TRY(ppo_observe(&m->ag.ppo, v->next_states, v->rewards, v->dones, v->states, e));
  }
  return 0;
}

static int steps_(struct pop *p, long steps, int issue, struct fox_err *e) {
  int dqn = first_(p)->ag.algo == FOX_ALGO_DQN;
  for (long k = 0; k < steps; k++)
    FOX_TRY(dqn ? dqn_step_(p, issue, e) : ppo_step_(p, issue, e));
  return 0;
}

static long gcd_(long a, long b) { return b ? gcd_(b, a % b) : a; }

long chunk_steps(const struct pop *p, long left) {
  const struct trial *t = first_(p);
  long k;
  if (t->ag.algo == FOX_ALGO_DQN) {
    /* About 1,024 transitions, a whole number of train_freq's periods (the steps after which
     * the credit of updates repeats: train_freq / gcd(num_envs, train_freq)), so that every
     * chunk of the steady state has one shape. */
    long n = t->cfg.num_envs, tf = t->cfg.dqn.train_freq, period = tf / gcd_(n, tf);
    k = (1024 + n - 1) / n;
    if (period <= FOX_CHUNK_MAX)
      k = (k + period - 1) / period * period;
    if (k > FOX_CHUNK_MAX)
      k = period <= FOX_CHUNK_MAX ? FOX_CHUNK_MAX / period * period : FOX_CHUNK_MAX;
  } else {
    k = t->cfg.ppo.n_steps - t->ag.ppo.t;
  }
  k = k < FOX_CHUNK_MAX ? k : FOX_CHUNK_MAX;
  return k < left ? k : left;
}

static void shape_(const struct pop *p, long steps, struct chunk_shape *s) {
  const struct trial *t = first_(p);
  memset(s, 0, sizeof *s);
  s->algo = t->ag.algo;
  s->steps = steps;
  s->parity = (uintptr_t)t->venv.states < (uintptr_t)t->venv.states_prev;
  if (t->ag.algo == FOX_ALGO_DQN)
    dqn_plan_ahead(&t->ag.dqn, t->cfg.num_envs, steps, s->due);
  else
    s->t0 = t->ag.ppo.t;
}

static int same_(const struct chunk_shape *a, const struct chunk_shape *b) {
  return a->algo == b->algo && a->parity == b->parity && a->t0 == b->t0 &&
         a->steps == b->steps && !memcmp(a->due, b->due, (size_t)a->steps * sizeof *a->due);
}

/* The cache's entry for shape s: found, or made (seen once), the least used one giving way. */
static struct chunk_graph *entry_(struct pop *p, const struct chunk_shape *s, int *fresh) {
  struct chunk_cache *c = &p->chunks;
  c->tick++;
  for (int i = 0; i < c->n; i++)
    if (same_(&c->g[i].shape, s)) {
      c->g[i].used = c->tick;
      *fresh = 0;
      return &c->g[i];
    }
  int at = c->n;
  if (c->n < FOX_CHUNK_SHAPES) {
    c->n++;
  } else {
    at = 0;
    for (int i = 1; i < c->n; i++)
      at = c->g[i].used < c->g[at].used ? i : at;
    if (c->g[at].graph)
      p->be->graph_free(c->g[at].graph);
  }
  c->g[at] = (struct chunk_graph){*s, NULL, c->tick};
  *fresh = 1;
  return &c->g[at];
}

/* Captures the chunk's steps (they advance the host's side as they are captured), then
 * launches the graph, which does their device side. */
static int capture_(struct pop *p, struct chunk_graph *g, long steps, struct fox_err *e) {
  const struct backend *be = p->be;
  FOX_TRY(be->graph_begin(e));
  int rc = steps_(p, steps, 1, e);
  void *graph = NULL;
  struct fox_err quiet = {0};
  int end = be->graph_end(&graph, rc == 0 ? e : &quiet); /* the capture ends either way */
  if (rc == 0)
    rc = end;
  if (rc != 0) {
    if (graph)
      be->graph_free(graph);
    return rc;
  }
  g->graph = graph;
  p->chunks.captured++;
  return be->graph_launch(graph, e);
}

/* The backend's table of the members, made outside any capture. */
static int table_(struct pop *p, struct fox_err *e) {
  if (p->chunks.table || !p->be->pops)
    return 0;
  struct dqn *d[FOX_POP_MAX];
  struct ppo *q[FOX_POP_MAX];
  struct venv *v[FOX_POP_MAX];
  int n = 0;
  EACH_(p, t) {
    d[n] = &t->ag.dqn;
    q[n] = &t->ag.ppo;
    v[n++] = &t->venv;
  }
  if (first_(p)->ag.algo == FOX_ALGO_DQN)
    return p->be->pops->dqn_open(d, v, n, &p->chunks.table, e);
  return p->be->pops->ppo_open(q, v, n, &p->chunks.table, e);
}

int chunk_run(struct pop *p, long steps, struct fox_err *e) {
  FOX_TRY(table_(p, e));
  if (!first_(p)->cfg.graphs || !p->be->graph_begin)
    return steps_(p, steps, 1, e);
  struct chunk_shape s;
  shape_(p, steps, &s);
  int fresh;
  struct chunk_graph *g = entry_(p, &s, &fresh);
  if (fresh) /* a shape seen once is run as it is: it may never come again */
    return steps_(p, steps, 1, e);
  if (!g->graph)
    return capture_(p, g, steps, e);
  FOX_TRY(p->be->graph_launch(g->graph, e));
  p->chunks.replayed++;
  return steps_(p, steps, 0, e);
}

void chunk_cache_free(struct pop *p) {
  struct chunk_cache *c = &p->chunks;
  for (int i = 0; i < c->n; i++)
    if (c->g[i].graph)
      p->be->graph_free(c->g[i].graph);
  if (c->table)
    p->be->pops->close(c->table);
  long captured = c->captured, replayed = c->replayed; /* what the population did stays */
  memset(c, 0, sizeof *c);
  c->captured = captured, c->replayed = replayed;
}
