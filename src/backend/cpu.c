/* The CPU backend: the reference twin of every CUDA launcher, looping (OpenMP) over the same
 * step headers the kernels call. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "agents/net.h"
#include "backend/agent_ops.h"
#include "backend/backend.h"
#include "env/venv.h"
#include "norm_step.h"

void backend_cpu_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n > 0 ? n : 1);
#else
  (void)n;
#endif
}

static void *cpu_alloc_(size_t bytes, struct fox_err *e) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p)
    fox_errf(e, FOX_EFAIL, "cpu backend: out of memory for %zu bytes", bytes);
  return p;
}

static void cpu_free_(void *p) { free(p); }

static int cpu_copy_(void *dst, const void *src, size_t bytes, struct fox_err *e) {
  if (bytes)
    memcpy(dst, src, bytes);
  return 0;
}

static int cpu_zero_(void *p, size_t bytes, struct fox_err *e) {
  if (bytes)
    memset(p, 0, bytes);
  return 0;
}

static void cpu_normalize_(const struct device_dataset *dev, const float *raw, float *out) {
  size_t count = dev->n * (size_t)dev->nfeat;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < count; i++)
    out[i] = norm_state_at(raw, dev->ncol, dev->sel, dev->norm, dev->nfeat, i);
}

static void cpu_dataset_release_(struct device_dataset *dev) {
  free(dev->features);
  free(dev->prices);
  free(dev->states);
  free(dev->norm);
  free(dev->sel);
  free(dev->sigma);
  *dev = (struct device_dataset){0};
}

/* dev's shape, selection, selected statistics and sigma column from ds (raw: its features). */
static int cpu_columns_(const struct dataset *ds, const float *raw, struct device_dataset *dev,
                        struct fox_err *e) {
  size_t n = ds->n, nf = (size_t)ds->nsel;
  dev->ncol = ds->ncol;
  dev->nfeat = ds->nsel;
  dev->norm = malloc(2 * nf * sizeof(float));
  dev->sel = malloc(nf * sizeof(int));
  dev->sigma = malloc(n ? n * sizeof(float) : 1);
  if (!dev->norm || !dev->sel || !dev->sigma)
    return fox_errf(e, FOX_EFAIL, "cpu backend: out of memory for %zu bars", n);
  memcpy(dev->sel, ds->sel, nf * sizeof(int));
  dataset_selected_norm(ds, dev->norm);
  for (size_t t = 0; t < n; t++)
    dev->sigma[t] = raw[t * (size_t)ds->ncol + FOX_EWM_VOL_COL];
  return 0;
}

static int cpu_dataset_upload_(const struct dataset *ds, struct device_dataset *dev,
                               struct fox_err *e) {
  size_t n = ds->n, fb = n * (size_t)ds->ncol * sizeof(float);
  size_t sb = n * (size_t)ds->nsel * sizeof(float);
  *dev = (struct device_dataset){.n = n, .device = -1};
  dev->features = malloc(fb ? fb : 1);
  dev->prices = malloc(n ? n * 4 * sizeof(float) : 1);
  dev->states = malloc(sb ? sb : 1);
  if (!dev->features || !dev->prices || !dev->states ||
      cpu_columns_(ds, ds->features, dev, e) != 0) {
    cpu_dataset_release_(dev);
    return fox_errf(e, FOX_EFAIL, "cpu backend: out of memory for %zu bars", n);
  }
  memcpy(dev->features, ds->features, fb);
  memcpy(dev->prices, ds->prices, n * 4 * sizeof(float));
  cpu_normalize_(dev, dev->features, dev->states);
  return 0;
}

/* Whether the selection is every column in order: the states may then replace the raw
 * features element by element. */
static int cpu_identity_(const struct device_dataset *dev) {
  if (dev->nfeat != dev->ncol)
    return 0;
  for (int j = 0; j < dev->nfeat; j++)
    if (dev->sel[j] != j)
      return 0;
  return 1;
}

/* The host's memory is this backend's: the arrays change owner, not place, and the states
 * replace the raw features they are derived from (one copy of the dataset, not two). */
static int cpu_dataset_take_(struct dataset *ds, struct device_dataset *dev, struct fox_err *e) {
  size_t n = ds->n;
  *dev = (struct device_dataset){.n = n, .device = -1, .summed = 1};
  if (!ds->features || !ds->prices)
    return fox_errf(e, FOX_EFAIL, "cpu backend: %s: the dataset's arrays were taken already",
                    ds->source);
  if (cpu_columns_(ds, ds->features, dev, e) != 0) {
    cpu_dataset_release_(dev);
    return e->code;
  }
  float *raw = ds->features;
  dev->crc_features = dataset_crc32(0, raw, n * (size_t)ds->ncol * sizeof(float));
  dev->crc_prices = dataset_crc32(0, ds->prices, n * 4 * sizeof(float));
  if (cpu_identity_(dev)) {
    /* Element by element: in place is the same arithmetic as into a second array. */
    cpu_normalize_(dev, raw, raw);
    dev->states = raw;
  } else {
    /* Rows of another width overlap other rows: a second array, then the raw one goes. */
    size_t sb = n * (size_t)dev->nfeat * sizeof(float);
    if (!(dev->states = malloc(sb ? sb : 1))) {
      cpu_dataset_release_(dev);
      return fox_errf(e, FOX_EFAIL, "cpu backend: out of memory for %zu bars", n);
    }
    cpu_normalize_(dev, raw, dev->states);
    free(raw);
  }
  dev->prices = ds->prices;
  ds->features = ds->prices = NULL;
  return 0;
}

static int cpu_dataset_states_(const struct device_dataset *dev, size_t begin, size_t count,
                               float *states, struct fox_err *e) {
  if (begin > dev->n || count > dev->n - begin)
    return fox_errf(e, FOX_EFAIL, "cpu backend: rows [%zu, %zu) of a %zu-bar dataset", begin,
                    begin + count, dev->n);
  if (count)
    memcpy(states, dev->states + begin * (size_t)dev->nfeat,
           count * (size_t)dev->nfeat * sizeof(float));
  return 0;
}

static int cpu_dataset_download_(const struct device_dataset *dev, float *features,
                                 float *prices, float *states, struct fox_err *e) {
  size_t fb = dev->n * (size_t)dev->ncol * sizeof(float);
  size_t sb = dev->n * (size_t)dev->nfeat * sizeof(float);
  if (features && !dev->features)
    return fox_errf(e, FOX_EFAIL, "cpu backend: the raw features were normalised in place "
                                  "(dataset_take): only their crc32 is kept");
  if (features)
    memcpy(features, dev->features, fb);
  if (prices)
    memcpy(prices, dev->prices, dev->n * 4 * sizeof(float));
  if (states)
    memcpy(states, dev->states, sb);
  return 0;
}

static int cpu_env_reset_(struct venv *v, struct fox_err *e) {
  const struct device_dataset *d = v->data;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < v->shape.num_envs; i++) {
    v->cur[i] = (struct env_cursor){0};
    v->rstats[i] = (struct reward_stats){0};
    env_episode_start(&v->p, &v->shape, i, &v->env[i], &v->cur[i]);
    int32_t t = v->cur[i].t;
    env_observe(&v->p, &v->env[i], t, d->states + (size_t)t * (size_t)d->nfeat,
                d->prices[4 * (size_t)t + 3], v->states + (size_t)i * (size_t)FOX_STATE_DIM(&v->p));
  }
  return 0;
}

static int cpu_env_step_(struct venv *v, int outputs, struct fox_err *e) {
  const struct device_dataset *d = v->data;
  struct venv_bufs b = venv_buffers(v, outputs);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < v->shape.num_envs; i++)
    venv_step_env(&v->p, &v->shape, d->prices, d->sigma, d->states, &b, i);
  return 0;
}

static int cpu_backtest_(const struct device_dataset *d, const struct bt_request *rq,
                         struct bt_result *out, struct fox_err *e) {
  int32_t b0 = rq->folds[0];
#pragma omp parallel for schedule(dynamic, 1)
  for (int j = 0; j < rq->nfolds; j++) {
    int32_t b = rq->folds[2 * j], en = rq->folds[2 * j + 1];
    size_t off = (size_t)(b - b0);
    struct seq_out o = {out->equity ? out->equity + off : NULL,
                        out->position ? out->position + off : NULL,
                        out->labels ? out->labels + off : NULL,
                        out->rewards ? out->rewards + off : NULL, NULL};
    env_run_sequence(&rq->p, d->prices, d->sigma, b, en, rq->actions + off, o,
                     out->acc ? &out->acc[j] : NULL, NULL);
  }
  return 0;
}

static int cpu_portfolio_sim_(const struct device_dataset *d, const struct bt_request *rq,
                              float *pf, struct env_state *final_state, struct fox_err *e) {
  int32_t b0 = rq->folds[0];
#pragma omp parallel for schedule(dynamic, 1)
  for (int j = 0; j < rq->nfolds; j++) {
    int32_t b = rq->folds[2 * j], en = rq->folds[2 * j + 1];
    size_t off = (size_t)(b - b0);
    struct seq_out o = {NULL, NULL, NULL, NULL, pf + 3 * off};
    env_run_sequence(&rq->p, d->prices, d->sigma, b, en, rq->actions + off, o, NULL,
                     final_state ? &final_state[j] : NULL);
  }
  return 0;
}

static int cpu_bind_(int device, struct fox_err *e) { return 0; }

const struct backend *backend_cpu(void) {
  static const struct backend b = {
      .name = "cpu",
      .mem_alloc = cpu_alloc_,
      .mem_free = cpu_free_,
      .mem_h2d = cpu_copy_,
      .mem_d2h = cpu_copy_,
      .mem_copy = cpu_copy_,
      .mem_zero = cpu_zero_,
      .dataset_upload = cpu_dataset_upload_,
      .dataset_download = cpu_dataset_download_,
      .dataset_release = cpu_dataset_release_,
      .dataset_take = cpu_dataset_take_,
      .dataset_states = cpu_dataset_states_,
      .env_reset = cpu_env_reset_,
      .env_step = cpu_env_step_,
      .backtest = cpu_backtest_,
      .portfolio_sim = cpu_portfolio_sim_,
      .nets = &net_cpu_ops,
      .agents = &agent_cpu_ops,
      .bind = cpu_bind_,
  };
  return &b;
}
