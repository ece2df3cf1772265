/* Agent dispatch and the greedy policy backtest. */
#include "train/agent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlp_layout.h"
#include "policy_step.h"

int agent_create(struct agent *a, const struct config *cfg, const struct backend *be,
                 const struct device_dataset *dev, long total, uint64_t seed,
                 struct fox_err *e) {
  memset(a, 0, sizeof *a);
  a->algo = cfg->algo;
  a->be = be;
  /* PPO's plan: the rollouts that the run's transitions fill. */
  long num_updates = total / ((long)cfg->num_envs * cfg->ppo.n_steps);
  int nfeat = dev ? dev->nfeat : cfg->market.nfeat; /* the dataset's selection decides */
  int rc = a->algo == FOX_ALGO_DQN
               ? dqn_create(&a->dqn, &cfg->dqn, be, cfg->num_envs, nfeat,
                            dev ? dev->states : NULL, total, seed, e)
               : ppo_create(&a->ppo, &cfg->ppo, cfg->num_envs, nfeat, num_updates,
                            be, seed, e);
  if (rc != 0)
    memset(a, 0, sizeof *a);
  return rc;
}

void agent_free(struct agent *a) {
  if (a->algo == FOX_ALGO_DQN)
    dqn_free(&a->dqn);
  else
    ppo_free(&a->ppo);
  memset(a, 0, sizeof *a);
}

/* The device's clock against the host's mirrors: every step's numbers came from the one, every
 * decision from the other, so they agree or the loop is broken. */
static int clock_check_(const struct agent *a, const unsigned char *got, struct fox_err *e) {
  if (a->algo == FOX_ALGO_DQN) {
    struct dqn_clock d, h = dqn_clock_mirror(&a->dqn);
    memcpy(&d, got, sizeof d);
    if (memcmp(&d, &h, sizeof d) != 0)
      return fox_errf(e, FOX_EFAIL, "agent: the device's DQN clock (transitions %lld, updates "
                                    "%lld, ring at %lld of %lld) is not the host's (%lld, %lld, "
                                    "%lld, %lld)", (long long)d.transitions,
                      (long long)d.updates, (long long)d.pos, (long long)d.size,
                      (long long)h.transitions, (long long)h.updates, (long long)h.pos,
                      (long long)h.size);
    return 0;
  }
  struct ppo_clock p;
  memcpy(&p, got, sizeof p);
  if (p.updates != a->ppo.updates)
    return fox_errf(e, FOX_EFAIL, "agent: the device's PPO clock (%lld rollouts) is not the "
                                  "host's (%ld)", (long long)p.updates, a->ppo.updates);
  return 0;
}

int agent_take(struct agent *a, struct agent_stats *st, struct fox_err *e) {
  double *dev = a->algo == FOX_ALGO_DQN ? a->dqn.acc : a->ppo.acc;
  size_t clock = a->algo == FOX_ALGO_DQN ? sizeof(struct dqn_clock) : sizeof(struct ppo_clock);
  double buf[FOX_ACC_N + (sizeof(struct dqn_clock) + sizeof(double) - 1) / sizeof(double)];
  double *acc = buf;
  FOX_TRY(a->be->mem_d2h(buf, dev, FOX_ACC_N * sizeof(double) + clock, e));
  FOX_TRY(clock_check_(a, (const unsigned char *)(buf + FOX_ACC_N), e));
  FOX_TRY(a->be->mem_zero(dev, FOX_ACC_N * sizeof(double), e));
  st->updates = (long)acc[FOX_ACC_UPDATES];
  st->loss = st->updates ? acc[FOX_ACC_LOSS] / acc[FOX_ACC_UPDATES] : NAN;
  st->bad_transitions = acc[FOX_ACC_BAD] > 0 ? (long)acc[FOX_ACC_BAD] - 1 : 0;
  return 0;
}

int agent_clock_put(struct agent *a, struct fox_err *e) {
  return a->algo == FOX_ALGO_DQN ? dqn_clock_put(&a->dqn, e) : ppo_clock_put(&a->ppo, e);
}

struct net *agent_policy_net(struct agent *a) {
  return a->algo == FOX_ALGO_DQN ? &a->dqn.online : &a->ppo.actor;
}

/* The policy network as the evaluation kernel reads it, where the backend keeps it. */
static struct policy_dev policy_(struct agent *a) {
  const struct net *n = agent_policy_net(a);
  struct policy_dev pol = {n->ops->params(n->impl), n->n_layers, n->activation,
                           a->algo == FOX_ALGO_DQN && a->dqn.cfg.dueling, {0}, {0}};
  int hidden[FOX_MAX_LAYERS];
  for (int l = 0; l + 1 < n->n_layers; l++)
    hidden[l] = n->dims[l + 1];
  mlp_layout(n->dims[0], hidden, n->n_layers - 1, n->dims[n->n_layers], pol.dims, pol.offset);
  return pol;
}

/* Evaluation k's folds as jobs at jobs[*nj ...], its actions in one host array. */
static int jobs_(const struct agent_eval *ev, const struct dataset *ds, struct eval_job *jobs,
                 int *nj, uint8_t **actions, struct fox_err *e) {
  int64_t b = ds->split[ev->split][0], en = ds->split[ev->split][1];
  size_t n = (size_t)(en - b);
  if (ev->nfolds < 1 || n / (size_t)ev->nfolds < 2)
    return fox_errf(e, FOX_EDATA, "%s: the %s split has %zu bars: %d fold%s of >= 2 bars "
                                  "cannot be cut from it", ds->source,
                    dataset_split_name(ev->split), n, ev->nfolds, ev->nfolds > 1 ? "s" : "");
  *actions = malloc(n);
  if (!*actions)
    return fox_errf(e, FOX_EFAIL, "agent: out of memory for %zu actions", n);
  struct policy_dev pol = policy_(ev->a);
  struct market_params p = ev->cfg->market;
  p.nfeat = ds->nsel; /* the states are the dataset's selection */
  if (pol.dims[0] != FOX_STATE_DIM(&p))
    return fox_errf(e, FOX_EDATA, "%s: the policy takes %d inputs, the dataset's %d selected "
                                  "features and the portfolio's %d make %d", ds->source,
                    pol.dims[0], p.nfeat, FOX_NPORTFOLIO, FOX_STATE_DIM(&p));
  for (int j = 0; j < ev->nfolds; j++) {
    int64_t fb, fe;
    backtest_fold_bounds(b, n, ev->nfolds, j, &fb, &fe);
    jobs[(*nj)++] = (struct eval_job){p, pol, (int32_t)fb, (int32_t)fe, *actions + (fb - b)};
  }
  return 0;
}

static int many_(const struct agent_eval *ev, int n, const struct backend *be,
                 const struct dataset *ds, const struct device_dataset *dev,
                 struct eval_job *jobs, uint8_t **actions, struct fox_err *e) {
  int nj = 0;
  for (int k = 0; k < n; k++)
    FOX_TRY(jobs_(&ev[k], ds, jobs, &nj, &actions[k], e));
  FOX_TRY(be->agents->greedy_eval(dev, jobs, nj, e));
  for (int k = 0; k < n; k++)
    FOX_TRY(backtest_run(be, ds, dev, ev[k].cfg, ev[k].split, ev[k].nfolds, actions[k],
                         ev[k].out, e));
  return 0;
}

int agent_backtest_many(const struct agent_eval *ev, int n, const struct backend *be,
                        const struct dataset *ds, const struct device_dataset *dev,
                        struct fox_err *e) {
  long folds = 0;
  for (int k = 0; k < n; k++)
    folds += ev[k].nfolds > 0 ? ev[k].nfolds : 0;
  struct eval_job *jobs = calloc((size_t)(folds ? folds : 1), sizeof *jobs);
  uint8_t **actions = calloc((size_t)(n ? n : 1), sizeof *actions);
  int rc = jobs && actions ? many_(ev, n, be, ds, dev, jobs, actions, e)
                           : fox_errf(e, FOX_EFAIL, "agent: out of memory for %d evaluations", n);
  for (int k = 0; actions && k < n; k++)
    free(actions[k]);
  free(actions);
  free(jobs);
  return rc;
}

int agent_backtest(struct agent *a, const struct backend *be, const struct dataset *ds,
                   const struct device_dataset *dev, const struct config *cfg, int split,
                   int nfolds, struct backtest_run *out, struct fox_err *e) {
  struct agent_eval ev = {a, cfg, split, nfolds, out};
  return agent_backtest_many(&ev, 1, be, ds, dev, e);
}

static int finite_(const struct net *n, int *finite, struct fox_err *e) {
  float *w = malloc(n->n_params * sizeof *w);
  if (!w)
    return fox_errf(e, FOX_EFAIL, "agent: out of memory");
  int rc = net_get_params(n, w, e);
  for (size_t i = 0; rc == 0 && i < n->n_params; i++)
    if (!isfinite(w[i]))
      *finite = 0;
  free(w);
  return rc;
}

int agent_finite(const struct agent *a, int *finite, struct fox_err *e) {
  *finite = 1;
  if (a->algo == FOX_ALGO_DQN)
    return finite_(&a->dqn.online, finite, e);
  FOX_TRY(finite_(&a->ppo.actor, finite, e));
  return finite_(&a->ppo.critic, finite, e);
}
