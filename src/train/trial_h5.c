/* trial.h5 writer and reader; written to a temporary name and renamed. */
#include "train/trial_h5.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "env/experience_h5.h"
#include "util/fsutil.h"
#include "act_step.h"
#include "util/h5io.h"

static int write_net_(hid_t g, const char *name, const struct net *m, struct fox_err *e) {
  float *w = malloc(m->n_params * sizeof *w);
  if (!w)
    return fox_errf(e, FOX_EFAIL, "trial.h5: out of memory");
  int st = net_get_params(m, w, e);
  if (st == 0)
    st = h5io_write(g, name, H5T_NATIVE_FLOAT, w, m->n_params, 0, 0, e);
  free(w);
  FOX_TRY(st);
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  h5Check(d, e, name);
  int rc = h5io_attr_write(d, "dims", H5T_NATIVE_INT, m->dims, (size_t)m->n_layers + 1, e);
  if (rc == 0)
    rc = h5io_attr_write_str(d, "activation", fox_act_name(m->activation), e);
  H5Dclose(d);
  return rc;
}

/* The hidden activation a stored network was trained with. Files written before it was a
 * setting have no attribute: they are all ReLU networks. */
/* The weights dataset `name`, open; FOX_EDATA when it is missing or unreadable. */
static hid_t open_net_(hid_t f, const char *name, const char *path, struct fox_err *e) {
  int has = h5io_find(f, name, path, e);
  if (has == 0)
    fox_errf(e, FOX_EDATA, "%s: missing %s (not a trained foxopt trial?)", path, name);
  hid_t d = has > 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
  if (has > 0 && d < 0) {
    char what[4400];
    snprintf(what, sizeof what, "%s: %s", path, name);
    h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  }
  return d;
}

static int stored_activation_(hid_t f, const char *name, int *act, const char *path,
                              struct fox_err *e) {
  *act = FOX_ACT_RELU;
  hid_t d = open_net_(f, name, path, e);
  if (d < 0)
    return e->code;
  char s[32] = "";
  int rc = 0;
  /* Unreadable (< 0) is not absent: the string reader names the damage. */
  if (H5Aexists(d, "activation") != 0) {
    rc = h5io_attr_read_str(d, "activation", s, sizeof s, path, e);
    if (rc == 0 && strcmp(s, fox_act_name(FOX_ACT_TANH)) == 0)
      *act = FOX_ACT_TANH;
    else if (rc == 0 && strcmp(s, fox_act_name(FOX_ACT_RELU)) != 0)
      rc = fox_errf(e, FOX_EDATA, "%s: %s has activation '%s', expected relu or tanh", path,
                    name, s);
  }
  H5Dclose(d);
  return rc;
}

struct trial_file_ {
  const struct config *cfg;
  struct agent *ag;
  const struct trial_result *r;
};

/* What the device did for this trial (backend/counters.h; zeros on the CPU backend), rows
 * train and eval, so that the budgets of the training loop can be checked from outside: its
 * share of its populations' work (an epoch's counts divided equally among the members) and
 * the graphs its populations captured and replayed. Since the process opened the trial: a
 * resumed trial counts from its resume. */
static const char *const device_cols_[] = {"launches", "graph_launches", "copies", "host_calls",
                                           "kernels", "syncs", "h2d_bytes", "d2h_bytes"};
enum { DEVICE_COLS_ = sizeof device_cols_ / sizeof *device_cols_ };

static int device_write_(hid_t f, const struct trial_result *r, struct fox_err *e) {
  int64_t x[2][DEVICE_COLS_];
  const struct backend_counts *c[2] = {&r->train_counts, &r->eval_counts};
  for (int k = 0; k < 2; k++) {
    const uint64_t v[DEVICE_COLS_] = {c[k]->launches, c[k]->graph_launches, c[k]->copies,
                                      counters_calls(c[k]), c[k]->nodes, c[k]->syncs,
                                      c[k]->h2d_bytes, c[k]->d2h_bytes};
    for (int j = 0; j < DEVICE_COLS_; j++)
      x[k][j] = (int64_t)v[j];
  }
  FOX_TRY(h5io_write(f, "device", H5T_NATIVE_INT64, x, 2, DEVICE_COLS_, 0, e));
  hid_t d = H5Dopen2(f, "device", H5P_DEFAULT);
  h5Check(d, e, "/device");
  static const char *const rows[] = {"train", "eval"};
  int64_t graphs[2] = {r->graphs_captured, r->graphs_replayed};
  int rc = h5io_attr_write_strs(d, "names", device_cols_, DEVICE_COLS_, e);
  if (rc == 0)
    rc = h5io_attr_write_strs(d, "rows", rows, 2, e);
  if (rc == 0) /* captured, replayed */
    rc = h5io_attr_write(d, "graphs", H5T_NATIVE_INT64, graphs, 2, e);
  H5Dclose(d);
  return rc;
}

static int write_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct trial_file_ *t = ctx;
  const struct config *cfg = t->cfg;
  struct agent *ag = t->ag;
  const struct trial_result *r = t->r;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem)
    return fox_errf(e, FOX_EFAIL, "trial.h5: out of memory");
  config_dump(cfg, mem);
  fclose(mem);
  int rc = h5io_attr_write_str(f, "config", text, e);
  free(text);
  FOX_TRY(rc);
  FOX_TRY(h5io_attr_write_str(f, "kind", "trial", e));
  FOX_TRY(experience_write_features(f, cfg, e));
  FOX_TRY(h5io_attr_write_str(f, "status", r->status == FOX_TRIAL_COMPLETE ? "complete" : "failed",
                              e));
  FOX_TRY(h5io_attr_write_str(f, "reason", r->reason, e));
  FOX_TRY(h5io_attr_write_str(f, "foxopt_version", FOXOPT_VERSION, e));
  /* Where the networks ran: a policy backtest on the same backend reproduces the metrics. */
  FOX_TRY(h5io_attr_write_str(f, "backend", agent_policy_net(ag)->ops->name, e));
  int64_t tr = r->transitions;
  FOX_TRY(h5io_attr_write(f, "transitions", H5T_NATIVE_INT64, &tr, 1, e));
  /* The number reward.scale stood for (auto resolves per dataset): also in `config`. */
  FOX_TRY(h5io_attr_write(f, "reward_scale", H5T_NATIVE_DOUBLE, &cfg->market.reward_scale, 1, e));

  hid_t g = H5Gcreate2(f, "weights", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "/weights");
  if (ag->algo == FOX_ALGO_DQN)
    rc = write_net_(g, "q", &ag->dqn.online, e);
  else if ((rc = write_net_(g, "actor", &ag->ppo.actor, e)) == 0)
    rc = write_net_(g, "critic", &ag->ppo.critic, e);
  H5Gclose(g);
  FOX_TRY(rc);

  size_t ne = (size_t)r->epochs_done;
  g = H5Gcreate2(f, "curve", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "/curve");
  int *ep = malloc((ne ? ne : 1) * sizeof *ep);
  double *cols = malloc((ne ? ne : 1) * (3 + FOX_NMETRICS) * sizeof *cols);
  if (!ep || !cols)
    rc = fox_errf(e, FOX_EFAIL, "trial.h5: out of memory");
  for (size_t i = 0; rc == 0 && i < ne; i++) {
    const struct epoch_row *row = &r->curve[i];
    ep[i] = row->epoch;
    cols[i] = row->seconds;
    cols[ne + i] = row->env_steps_per_s;
    cols[2 * ne + i] = row->loss;
    for (int m = 0; m < FOX_NMETRICS; m++)
      cols[3 * ne + i * FOX_NMETRICS + m] = metrics_get(&row->eval, m);
  }
  if (rc == 0)
    rc = h5io_write(g, "epoch", H5T_NATIVE_INT, ep, ne, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "seconds", H5T_NATIVE_DOUBLE, cols, ne, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "env_steps_per_s", H5T_NATIVE_DOUBLE, cols + ne, ne, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "loss", H5T_NATIVE_DOUBLE, cols + 2 * ne, ne, 0, 0, e);
  for (size_t i = 0; rc == 0 && i < ne; i++)
    ep[i] = r->curve[i].members;
  if (rc == 0) /* the population each epoch trained in (train/pop.h), the trial itself too */
    rc = h5io_write(g, "members", H5T_NATIVE_INT, ep, ne, 0, 0, e);
  for (size_t i = 0; rc == 0 && i < ne; i++)
    ep[i] = r->curve[i].epoch;
  if (rc == 0)
    rc = h5io_write(g, "eval", H5T_NATIVE_DOUBLE, cols + 3 * ne, ne, FOX_NMETRICS, 0, e);
  if (rc == 0) {
    hid_t d = H5Dopen2(g, "eval", H5P_DEFAULT);
    rc = d < 0 ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/curve/eval")
               : h5io_attr_write_strs(d, "names", metrics_names, FOX_NMETRICS, e);
    if (d >= 0)
      H5Dclose(d);
  }
  free(ep);
  free(cols);
  H5Gclose(g);
  FOX_TRY(rc);
  FOX_TRY(device_write_(f, r, e));
  double fin[FOX_NMETRICS];
  for (int m = 0; m < FOX_NMETRICS; m++) /* a failed trial has no result, not a zero one */
    fin[m] = r->status == FOX_TRIAL_COMPLETE ? metrics_get(&r->final, m) : NAN;
  FOX_TRY(h5io_write(f, "metrics", H5T_NATIVE_DOUBLE, fin, FOX_NMETRICS, 0, 0, e));
  hid_t d = H5Dopen2(f, "metrics", H5P_DEFAULT);
  h5Check(d, e, "/metrics");
  rc = h5io_attr_write_strs(d, "names", metrics_names, FOX_NMETRICS, e);
  H5Dclose(d);
  return rc;
}

int trial_write_h5(const char *path, const struct config *cfg, struct agent *agent,
                   const struct trial_result *r, struct fox_err *e) {
  struct trial_file_ ctx = {cfg, agent, r};
  return h5io_create_atomic(path, write_body_, &ctx, e);
}

int trial_write_group(hid_t g, const struct config *cfg, struct agent *agent,
                      const struct trial_result *r, struct fox_err *e) {
  struct trial_file_ ctx = {cfg, agent, r};
  return write_body_(g, &ctx, e);
}

static int read_net_(hid_t f, const char *name, struct net *m, const char *path,
                     struct fox_err *e) {
  int dims[FOX_MAX_LAYERS + 2];
  hid_t d = open_net_(f, name, path, e);
  if (d < 0)
    return e->code;
  int rc = h5io_attr_read(d, "dims", H5T_NATIVE_INT, dims, (size_t)m->n_layers + 1, path, e);
  H5Dclose(d);
  FOX_TRY(rc);
  for (int l = 0; l <= m->n_layers; l++)
    if (dims[l] != m->dims[l])
      return fox_errf(e, FOX_EDATA, "%s: %s layer %d has width %d, its config says %d", path,
                      name, l, dims[l], m->dims[l]);
  float *w = malloc(m->n_params * sizeof *w);
  if (!w)
    return fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  /* A complete trial's weights are numbers (a diverging one ends failed, with no policy): NaN
   * weights made every action the same and the backtest all zeros. */
  rc = h5io_read_finite(f, name, H5T_NATIVE_FLOAT, w, m->n_params, 0, 0, -INFINITY, path, e);
  if (rc == 0)
    rc = net_set_params(m, w, e);
  free(w);
  return rc;
}

int trial_read_group(hid_t f, const char *path, const struct backend *be, struct config *cfg,
                     struct agent *ag, struct fox_err *e) {
  char kind[32], status[32], reason[512];
  if (h5io_attr_read_str(f, "kind", kind, sizeof kind, path, e) != 0 || strcmp(kind, "trial"))
    return fox_errf(e, FOX_EDATA, "%s: not a trial file from foxopt train", path);
  FOX_TRY(h5io_attr_read_str(f, "status", status, sizeof status, path, e));
  FOX_TRY(h5io_attr_read_str(f, "reason", reason, sizeof reason, path, e));
  if (strcmp(status, "complete") != 0)
    return fox_errf(e, FOX_EDATA, "%s: the trial %s (%s): it has no policy to run", path, status,
                    reason);
  size_t cap = 1 << 16;
  char *text = malloc(cap);
  if (!text)
    return fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  int rc = h5io_attr_read_str(f, "config", text, cap, path, e);
  config_defaults(cfg);
  char name[4200];
  snprintf(name, sizeof name, "%s:/config", path);
  if (rc == 0 && (rc = config_load_text(cfg, text, name, NULL, e)) != 0)
    rc = e->code = FOX_EDATA; /* a file's content, not the user's command line */
  free(text);
  FOX_TRY(rc);
  /* The network's inputs: its features (data.features, else the 51 built-in ones) and the
   * portfolio's; read_net_ refuses weights of another width. */
  cfg->market.nfeat = cfg->n_features ? cfg->n_features : FOX_NFEAT;
  if (cfg->algo == FOX_ALGO_DQN)
    FOX_TRY(stored_activation_(f, "weights/q", &cfg->dqn.activation, path, e));
  else
    FOX_TRY(stored_activation_(f, "weights/actor", &cfg->ppo.activation, path, e));
  FOX_TRY(agent_create(ag, cfg, be, NULL, 0, 0, e));
  rc = ag->algo == FOX_ALGO_DQN ? read_net_(f, "weights/q", &ag->dqn.online, path, e)
                                    : read_net_(f, "weights/actor", &ag->ppo.actor, path, e);
  if (rc == 0 && ag->algo == FOX_ALGO_PPO)
    rc = read_net_(f, "weights/critic", &ag->ppo.critic, path, e);
  if (rc != 0)
    agent_free(ag);
  return rc;
}

int trial_read_h5(const char *path, const struct backend *be, struct config *cfg,
                  struct agent *agent, struct fox_err *e) {
  hid_t f;
  FOX_TRY(h5io_open_read(path, "trial.h5 from foxopt train", &f, e));
  int rc = trial_read_group(f, path, be, cfg, agent, e);
  H5Fclose(f);
  return rc;
}

int trial_backend_group(hid_t g, const char *path, char *name, size_t n, struct fox_err *e) {
  FOX_TRY(h5io_attr_read_str(g, "backend", name, n, path, e));
  /* The file's word, not the user's --backend: anything else is a damaged file (exit 3). */
  if (strcmp(name, "cpu") != 0 && strcmp(name, "cuda") != 0)
    return fox_errf(e, FOX_EDATA, "%s: attribute 'backend' is '%s', expected cpu or cuda", path,
                    name);
  return 0;
}

int trial_backend_h5(const char *path, char *name, size_t n, struct fox_err *e) {
  hid_t f;
  FOX_TRY(h5io_open_read(path, "trial.h5 from foxopt train", &f, e));
  char kind[32] = "";
  struct fox_err ignore = {0};
  h5io_attr_read_str(f, "kind", kind, sizeof kind, path, &ignore);
  int rc = strcmp(kind, "trial") != 0
               ? fox_errf(e, FOX_EDATA, "%s: not a trial file from foxopt train", path)
               : trial_backend_group(f, path, name, n, e);
  H5Fclose(f);
  return rc;
}
