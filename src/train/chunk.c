/* The training steps of a trial and their chunks (chunk.h): each step's host side (the
 * environments' state buffers swap, the agent's counters advance) always runs; its device side
 * runs when the step is issued, which a replayed graph has done instead. */
#include "train/chunk.h"

#include <string.h>

#include "train/trial.h"

/* One DQN vector step: act, step the environments, store and learn (the updates now due). */
static int dqn_step_(struct trial *t, int issue, struct fox_err *e) {
  struct dqn *d = &t->ag.dqn;
  struct venv *v = &t->venv;
  int n = v->shape.num_envs, out = VENV_STATES | VENV_NEXT;
  if (issue)
    FOX_TRY(dqn_act(d, v->states, n, v->actions, e));
  venv_swap(v, out);
  if (issue)
    FOX_TRY(venv_run(v, out, e));
  int due = dqn_plan(d, n);
  if (!issue)
    return 0;
  return dqn_learn(d, n, due, v->bars, v->states_prev, v->next_states, v->actions, v->rewards,
                   v->dones, e);
}

/* One PPO vector step; the update runs when the rollout is full. */
static int ppo_step_(struct trial *t, int issue, struct fox_err *e) {
  struct ppo *p = &t->ag.ppo;
  struct venv *v = &t->venv;
  int out = VENV_STATES | VENV_NEXT;
  if (issue)
    FOX_TRY(ppo_act(p, v->states, v->actions, e));
  venv_swap(v, out);
  if (!issue) {
    ppo_plan(p);
    return 0;
  }
  FOX_TRY(venv_run(v, out, e));
  return ppo_observe(p, v->next_states, v->rewards, v->dones, v->states, e);
}

static int steps_(struct trial *t, long steps, int issue, struct fox_err *e) {
  for (long k = 0; k < steps; k++)
    FOX_TRY(t->ag.algo == FOX_ALGO_DQN ? dqn_step_(t, issue, e) : ppo_step_(t, issue, e));
  return 0;
}

static long gcd_(long a, long b) { return b ? gcd_(b, a % b) : a; }

long chunk_steps(const struct trial *t, long left) {
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

static void shape_(const struct trial *t, long steps, struct chunk_shape *s) {
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
static struct chunk_graph *entry_(struct trial *t, const struct chunk_shape *s, int *fresh) {
  struct chunk_cache *c = &t->chunks;
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
      t->be->graph_free(c->g[at].graph);
  }
  c->g[at] = (struct chunk_graph){*s, NULL, c->tick};
  *fresh = 1;
  return &c->g[at];
}

/* Captures the chunk's steps (they advance the host's side as they are captured), then
 * launches the graph, which does their device side. */
static int capture_(struct trial *t, struct chunk_graph *g, long steps, struct fox_err *e) {
  const struct backend *be = t->be;
  FOX_TRY(be->graph_begin(e));
  int rc = steps_(t, steps, 1, e);
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
  t->chunks.captured++;
  return be->graph_launch(graph, e);
}

int chunk_run(struct trial *t, long steps, struct fox_err *e) {
  if (!t->cfg.graphs || !t->be->graph_begin)
    return steps_(t, steps, 1, e);
  struct chunk_shape s;
  shape_(t, steps, &s);
  int fresh;
  struct chunk_graph *g = entry_(t, &s, &fresh);
  if (fresh) /* a shape seen once is run as it is: it may never come again */
    return steps_(t, steps, 1, e);
  if (!g->graph)
    return capture_(t, g, steps, e);
  FOX_TRY(t->be->graph_launch(g->graph, e));
  t->chunks.replayed++;
  return steps_(t, steps, 0, e);
}

void chunk_cache_free(struct trial *t) {
  struct chunk_cache *c = &t->chunks;
  for (int i = 0; i < c->n; i++)
    if (c->g[i].graph)
      t->be->graph_free(c->g[i].graph);
  memset(c, 0, sizeof *c);
}
