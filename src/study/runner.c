/* Trial segments on this process: a pool of threads pulling items, each segment from its
 * checkpoint to its rung's budget. */
#include "study/runner.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "study/objective.h"
#include "study/rankfile.h"
#include "train/pop.h"
#include "train/trial_state.h"
#include "util/fsutil.h"
#include "util/h5io.h"
#include "train/trial.h"

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The calendar time for the timeline (durations use the monotonic clock, which a clock step
 * cannot make negative). */
static double utc_now_(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
    return NAN;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Repeat 0 keeps the name it had before repeats existed: a study with one repeat is unchanged. */
static void state_path_(const char *outdir, int id, int repeat, int epochs, char *out,
                        size_t n) {
  if (repeat == 0)
    snprintf(out, n, "%s/state/trial-%d-e%d.h5", outdir, id, epochs);
  else
    snprintf(out, n, "%s/state/trial-%d-r%d-e%d.h5", outdir, id, repeat, epochs);
}

/* A trial the state cache held (struct trial holds no pointer into itself, so it moves). */
static void held_close_(void *held) {
  trial_close(held);
  free(held);
}

static int mkdir_(const char *path, struct fox_err *e) {
  if (mkdir(path, 0777) != 0 && errno != EEXIST)
    return fox_errf(e, FOX_EFAIL, "%s: cannot create directory: %s", path, strerror(errno));
  return 0;
}

int runner_check_data(struct study *s, const char *outdir, int fresh, struct fox_err *e) {
  if (objective_function(s->cfg.study.function))
    return 0;
  struct dataset ds;
  FOX_TRY(dataset_read_h5_lean(&ds, s->cfg.data_path, e));
  uint32_t crc[2], meta = dataset_meta_sum(&ds);
  dataset_sums(&ds, crc);
  int64_t bars = (int64_t)ds.n;
  double per_year = ds.bars_per_year;
  dataset_free(&ds);
  const char *p = s->cfg.data_path;
  int rc = 0;
  if (s->data_bars > 0 &&
      (s->data_bars != bars || s->data_crc[0] != crc[0] || s->data_crc[1] != crc[1]))
    rc = fox_errf(e, FOX_EDATA, "%s: not the bars this study began with (%lld bars, crc32 %08x "
                                "of the features and %08x of the prices; study.h5 records %lld, "
                                "%08x and %08x): a resume trains on the same data. Put that "
                                "dataset back at data.path, or start a new study in another "
                                "OUTDIR", p, (long long)bars, crc[0], crc[1],
                  (long long)s->data_bars, s->data_crc[0], s->data_crc[1]);
  else if (s->data_bars > 0 && s->data_meta_known && s->data_meta != meta)
    rc = fox_errf(e, FOX_EDATA, "%s: the bars this study began with, but other splits, "
                                "bars_per_year or feature scaling (crc32 %08x; study.h5 records "
                                "%08x): imported again with another --split or --bars-per-year? "
                                "A resume trains and evaluates as the study began", p, meta,
                  s->data_meta);
  else if (!fresh && !s->data_meta_known && s->bars_per_year > 0 && per_year != s->bars_per_year)
    rc = fox_errf(e, FOX_EDATA, "%s: bars_per_year %.17g, the study's %.17g: imported again with "
                                "another --bars-per-year? A resume evaluates as the study began",
                  p, per_year, s->bars_per_year);
  if (rc == 0 && s->data_bars <= 0 && !fresh) {
    /* a study from before the record: its copy holds the bars it began with */
    char copy[64], path[4300];
    size_t cb;
    uint32_t had[2];
    struct fox_err ignore = {0};
    dataset_copy_name(0, copy, sizeof copy);
    snprintf(path, sizeof path, "%s/%s", outdir, copy);
    h5io_quiet();
    int read = fs_exists(path) && dataset_copy_sums(path, &cb, had, &ignore) == 0;
    H5Eclear2(H5E_DEFAULT);
    if (read && ((int64_t)cb != bars || had[0] != crc[0] || had[1] != crc[1]))
      rc = fox_errf(e, FOX_EDATA, "%s: not the bars of this study's copy %s (%lld bars, crc32 "
                                  "%08x and %08x; the copy's %zu, %08x and %08x): a resume "
                                  "trains on the same data. Put that dataset back at "
                                  "data.path, or start a new study in another OUTDIR",
                    p, path, (long long)bars, crc[0], crc[1], cb, had[0], had[1]);
    else if (!read)
      fprintf(stderr, "foxopt run: warning: %s: the study records no dataset and its copy %s "
                      "cannot be read: the bars at data.path are taken for the study's\n",
              p, path);
  }
  if (rc == 0) {
    s->data_bars = bars;
    memcpy(s->data_crc, crc, sizeof s->data_crc);
    /* what it was checked against, or a new study's: never learnt on a resume that could not
     * check it (a re-split taken for the study's would refuse its own dataset later) */
    if (fresh)
      s->data_meta = meta, s->data_meta_known = 1;
  }
  return rc;
}

int runner_open(struct runner *r, const struct study *s, const char *outdir, int rank,
                int local_rank, int local_size, int host_root, int device, const char *backend,
                const volatile sig_atomic_t *stop, struct fox_err *e) {
  memset(r, 0, sizeof *r);
  r->s = s;
  snprintf(r->outdir, sizeof r->outdir, "%s", outdir);
  r->rank = rank;
  r->stop = stop;
  r->threads = s->cfg.study.trials_per_device;
  char state[4200], host[256] = "unknown";
  snprintf(state, sizeof state, "%s/state", outdir);
  FOX_TRY(mkdir_(state, e));
  gethostname(host, sizeof host - 1);
  if (pthread_mutex_init(&r->lock, NULL) != 0)
    return fox_errf(e, FOX_EFAIL, "runner: cannot make a mutex");
  /* a rank holds at most as many trials open for the next generation as it trains at once:
   * the device memory of a study's segments at most doubles */
  if (state_cache_init(&r->cache, held_close_, r->threads) != 0) {
    pthread_mutex_destroy(&r->lock);
    return fox_errf(e, FOX_EFAIL, "runner: cannot make a mutex");
  }
  live_open(&r->live, outdir, s->cfg.tensorboard, rank);
  if (objective_function(s->cfg.study.function)) {
    snprintf(r->device, sizeof r->device, "none (test function)");
    return rankfile_create(outdir, rank, local_rank, local_size, NULL, NULL, "", NULL, host,
                           r->device, e);
  }
  static const char *const names[3] = {"auto", "cpu", "cuda"};
  int rc = backend_select(backend ? backend : names[s->cfg.backend], &r->be, e);
  if (rc == 0)
    rc = dataset_read_h5_lean(&r->ds, s->cfg.data_path, e);
  if (rc != 0)
    return rc;
  r->have_data = 1;
  struct config base = s->cfg;
  char where[1100];
  snprintf(where, sizeof where, "data.features in %s", s->cfg.data_path);
  rc = trial_select_features(&base, &r->ds, where, e);
  if (rc == 0)
    rc = trial_resolve_reward(&base, &r->ds, e);
  if (rc != 0) {
    runner_close(r);
    return rc;
  }
  r->reward_scale = base.market.reward_scale;
  /* The data must allow training and evaluation at all (exit 3 now, not N failed trials). */
  const struct config *probe = &s->cfg;
  int64_t eb = r->ds.split[probe->eval_split][1] - r->ds.split[probe->eval_split][0];
  int64_t tb = r->ds.split[FOX_SPLIT_TRAIN][1] - r->ds.split[FOX_SPLIT_TRAIN][0];
  if (eb < 2 * probe->eval_folds || tb < 2) {
    runner_close(r);
    return fox_errf(e, FOX_EDATA, "%s: the train split has %lld bars and the %s split %lld: "
                                  "a study needs at least 2 in the train split and 2 per fold "
                                  "(eval.folds %d) in the %s split", s->cfg.data_path,
                    (long long)tb, dataset_split_name(probe->eval_split), (long long)eb,
                    probe->eval_folds, dataset_split_name(probe->eval_split));
  }
  char copy[64], copy_path[4300];
  dataset_copy_name(host_root, copy, sizeof copy);
  snprintf(copy_path, sizeof copy_path, "%s/%s", outdir, copy);
  /* The host's one stored copy, from the arrays before they go to the device. */
  if (rank == host_root) { /* the host's lowest rank sums the arrays and stores them */
    uint32_t crc[2];
    dataset_sums(&r->ds, crc);
    rc = dataset_copy_write(copy_path, &r->ds, crc, host, s->cfg.data_path, e);
  }
  if (rc == 0)
    rc = r->be->bind(device, e);
  if (rc == 0)
    rc = r->be->dataset_take(&r->ds, &r->dev, e);
  if (rc != 0) {
    dataset_free(&r->ds);
    r->have_data = 0;
    return rc;
  }
  r->have_data = 2;
  if (r->dev.device >= 0)
    snprintf(r->device, sizeof r->device, "cuda:%d", r->dev.device);
  else
    snprintf(r->device, sizeof r->device, "cpu");
  rc = rankfile_create(outdir, rank, local_rank, local_size, r->be, &r->dev, s->cfg.data_path,
                       copy, host, r->device, e);
  if (rc != 0)
    runner_close(r);
  return rc;
}

void runner_close(struct runner *r) {
  state_cache_free(&r->cache); /* its held trials before the dataset they read */
  if (r->have_data == 2)
    r->be->dataset_release(&r->dev);
  if (r->have_data)
    dataset_free(&r->ds);
  r->have_data = 0;
  pthread_mutex_destroy(&r->lock);
  live_close(&r->live);
}

static int put_(struct runner *r, const struct work_item *it, int epochs, struct trial *t,
                double value, const char *failed, struct fox_err *e) {
  pthread_mutex_lock(&r->lock);
  int rc = rankfile_put_trial(r->outdir, r->rank, r->s, it->trial, it->repeat, it->x, epochs,
                              t, value, failed, e);
  pthread_mutex_unlock(&r->lock);
  return rc;
}

/* A test function: its outputs at every epoch are f(x); each epoch takes objective.seconds. */
static int run_function_(struct runner *r, const struct work_item *it, struct work_result *res,
                         struct fox_err *e) {
  const struct study *s = r->s;
  const struct test_function *tf = objective_function(s->cfg.study.function);
  double v[FOX_SPACE_MAX] = {0};
  for (int j = 0; j < tf->dims; j++)
    for (int i = 0; i < s->space.n; i++)
      if (strcmp(s->space.p[i].key, tf->vars[j]) == 0)
        v[j] = space_number(&s->space.p[i], it->x[i]);
  double wait = s->cfg.study.seconds * (it->to_epochs - it->from_epochs), t0 = now_();
  while (now_() - t0 < wait) {
    if (r->stop && *r->stop) {
      res->done = FOX_WORK_STOPPED;
      return 0;
    }
    double left = wait - (now_() - t0), nap = left < 0.05 ? left : 0.05;
    struct timespec ts = {(time_t)nap, (long)((nap - floor(nap)) * 1e9)};
    nanosleep(&ts, NULL);
  }
  objective_eval(tf, v, res->metrics[0]);
  res->epochs = it->to_epochs;
  res->status = FOX_ST_RUNNING;
  return put_(r, it, res->epochs, NULL, res->metrics[0][0], NULL, e);
}

/* Continues t from the state of (trial, repeat) at `epochs`: the bytes this rank holds (its
 * own segment's, or another rank's it received; the arrays copied within the device from the
 * segment's trial where this rank trained it, *copied counting those), else the checkpoint in
 * OUTDIR/state (after a resume). buffers: only the experience (copy_buffers false). */
static int load_state_(struct runner *r, struct trial *t, int trial, int repeat, int epochs,
                       int buffers, int *copied, struct fox_err *e) {
  char path[4300];
  state_path_(r->outdir, trial, repeat, epochs, path, sizeof path);
  struct state_entry held;
  if (state_cache_get(&r->cache, trial, repeat, epochs, &held)) {
    char name[4400];
    snprintf(name, sizeof name, "%s (held in memory)", path);
    *copied += held.held != NULL;
    int rc = buffers ? trial_state_load_buffers(t, held.buf, held.len, name, held.held, e)
                     : trial_state_load_image(t, held.buf, held.len, name, held.held, e);
    if (held.held)
      state_cache_used(&r->cache, trial, repeat, epochs);
    return rc;
  }
  if (!buffers) {
    FOX_TRY(trial_state_load(t, path, e));
    /* the trial, repeat and epoch its name says: a checkpoint copied over another is not
     * silently continued */
    if (t->owner[0] >= 0 && (t->owner[0] != trial || t->owner[1] != repeat))
      return fox_errf(e, FOX_EDATA, "%s: the state of trial %d repeat %d, not of this trial's "
                                    "(trial %d repeat %d)", path, t->owner[0], t->owner[1],
                      trial, repeat);
    if (t->r.epochs_done != epochs)
      return fox_errf(e, FOX_EDATA, "%s: holds %d epoch%s, its name says %d (not this trial's "
                                    "checkpoint)", path, t->r.epochs_done,
                      t->r.epochs_done == 1 ? "" : "s", epochs);
    return 0;
  }
  void *buf = NULL;
  size_t len = 0;
  FOX_TRY(fs_read_bytes(path, "the checkpoint", &buf, &len, e));
  int rc = trial_state_load_buffers(t, buf, len, path, NULL, e);
  free(buf);
  if (rc == 0 && t->owner[0] >= 0 && (t->owner[0] != trial || t->owner[1] != repeat))
    rc = fox_errf(e, FOX_EDATA, "%s: the state of trial %d repeat %d, not of this trial's "
                                "(trial %d repeat %d)", path, t->owner[0], t->owner[1], trial,
                  repeat);
  return rc;
}

/* The segment's final state: written to OUTDIR/state (a resume continues from it) and, when
 * pbt asks, kept in memory for the next generation. */
static int save_state_(struct runner *r, const struct work_item *it, struct trial *t,
                       struct fox_err *e) {
  void *buf = NULL;
  size_t len = 0;
  char path[4300];
  t->owner[0] = it->trial, t->owner[1] = it->repeat; /* its name's, checked when it is read */
  FOX_TRY(trial_state_image(t, &buf, &len, e));
  state_path_(r->outdir, it->trial, it->repeat, t->r.epochs_done, path, sizeof path);
  int rc = fs_write_own(path, buf, len, e);
  if (rc == 0 && it->hold_state)
    return state_cache_put(&r->cache, it->trial, it->repeat, t->r.epochs_done, buf, len, e);
  free(buf);
  return rc;
}

/* An agent segment in this process: its item, its result, its trial and the population it
 * trains in. */
struct seg_ {
  const struct work_item *it;
  struct work_result *res;
  struct trial t;
  double t0;
  struct pop *pop;
};

static void result_start_(struct runner *r, const struct work_item *it,
                          struct work_result *res) {
  memset(res, 0, sizeof *res);
  res->trial = it->trial;
  res->repeat = it->repeat;
  res->rank = r->rank;
  res->done = FOX_WORK_DONE;
  res->start = utc_now_();
  for (int f = 0; f < FOX_FOLDS_MAX; f++)
    for (int m = 0; m < FOX_STUDY_METRICS; m++)
      res->metrics[f][m] = NAN;
}

/* Opens the segment's trial from its checkpoint; *open = 0 when there is nothing to train:
 * errors of the trial itself (a config its parameters make unusable) are recorded as a
 * failure with the message. I/O errors end the run. */
static int seg_open_(struct runner *r, struct seg_ *g, int *open, struct fox_err *e) {
  const struct study *s = r->s;
  const struct work_item *it = g->it;
  struct work_result *res = g->res;
  struct config cfg;
  struct fox_err te = {0};
  *open = 0;
  int rc = study_trial_config(s, it->x, it->seed, &cfg, &te);
  if (rc == 0)
    rc = trial_check(&cfg, &r->ds, s->cfg.data_path, &te);
  if (rc != 0) { /* nothing trained (a pbt member explored into it inherits no epochs) */
    res->status = FOX_ST_FAILED;
    res->epochs = 0;
    snprintf(res->reason, sizeof res->reason, "%.*s", (int)sizeof res->reason - 1, te.msg);
    rc = put_(r, it, 0, NULL, NAN, res->reason, e);
    res->seconds = now_() - g->t0;
    return rc;
  }
  FOX_TRY(trial_open(&g->t, &cfg, &r->ds, r->be, &r->dev, e));
  double s0 = now_();
  if (it->from_epochs > 0)
    rc = load_state_(r, &g->t, it->from_trial, it->repeat, it->from_epochs, 0, &res->copied,
                     e);
  if (rc == 0 && it->from_epochs > 0 && it->buffers_trial >= 0)
    rc = load_state_(r, &g->t, it->buffers_trial, it->repeat, it->from_epochs, 1, &res->copied,
                     e);
  if (rc == FOX_EDATA && it->from_trial == it->trial && it->buffers_trial < 0) {
    /* Its own checkpoint missing or damaged (--resume after a disk fault): the trial trains
     * again from its start, which ends in the state the checkpoint held (a checkpoint is the
     * whole state, so a continued trial equals one trained straight through). A pbt child's
     * parent state has no such way back: that stays an error. */
    fprintf(stderr, "foxopt run: warning: %s: trial %d trains again from its start (its "
                    "checkpoint of epoch %d cannot be used)\n", e->msg, it->trial, it->from_epochs);
    fox_err_clear(e);
    trial_close(&g->t);
    res->copied = 0;
    FOX_TRY(rc = trial_open(&g->t, &cfg, &r->ds, r->be, &r->dev, e));
  }
  res->state_seconds = now_() - s0;
  if (rc != 0) {
    trial_close(&g->t);
    return rc;
  }
  *open = 1;
  return 0;
}

/* The segment's trial stays open beside its held state, for the next generation to copy on
 * the device: 1 when the cache took it over (t is then no longer the caller's to close). */
static int hold_(struct runner *r, const struct work_item *it, const struct trial *t) {
  struct trial *h = malloc(sizeof *h);
  if (!h)
    return 0;
  *h = *t;
  if (state_cache_hold(&r->cache, it->trial, it->repeat, t->r.epochs_done, h))
    return 1;
  free(h);
  return 0;
}

/* Trained as far as its item asks (or failed). */
static int seg_done_(const struct seg_ *g) {
  int to = g->it->to_epochs < g->t.cfg.epochs ? g->it->to_epochs : g->t.cfg.epochs;
  return g->t.r.epochs_done >= to || g->t.r.status != FOX_TRIAL_COMPLETE;
}

/* The segment's end: its metrics, its checkpoint when a later rung may follow, its row in
 * this rank's file; its trial closes. stopped: abandoned between two steps, not recorded (the
 * trial must not be continued: its last checkpoint is). */
static int seg_finish_(struct runner *r, struct seg_ *g, int stopped, struct fox_err *e) {
  const struct study *s = r->s;
  const struct work_item *it = g->it;
  struct work_result *res = g->res;
  struct trial *t = &g->t;
  int rc = 0;
  res->seconds = now_() - g->t0;
  if (stopped) {
    res->done = FOX_WORK_STOPPED;
    trial_close(t);
    return 0;
  }
  res->epochs = t->r.epochs_done;
  res->status = t->r.status == FOX_TRIAL_FAILED ? FOX_ST_FAILED : FOX_ST_RUNNING;
  snprintf(res->reason, sizeof res->reason, "%.*s", (int)sizeof res->reason - 1, t->r.reason);
  for (int f = 0; f < s->folds && f < t->last.nfolds; f++)
    for (int m = 0; m < FOX_NMETRICS; m++)
      res->metrics[f][m] =
          res->status == FOX_ST_FAILED ? NAN : metrics_get(&t->last.fold_metrics[f], m);
  int saved = it->keep_state && res->status != FOX_ST_FAILED;
  if (saved) {
    double s0 = now_();
    rc = save_state_(r, it, t, e);
    res->state_seconds += now_() - s0;
  }
  if (rc == 0)
    rc = put_(r, it, t->r.epochs_done, t, NAN, NULL, e);
  if (rc != 0 || !saved || !it->hold_state || !hold_(r, it, t))
    trial_close(t);
  res->seconds = now_() - g->t0;
  return rc;
}

struct pool_ {
  struct runner *r;
  const struct work_item *items;
  struct work_result *res;
  const struct runner_queue *q;
  int n, next, rc, running;
  int members; /* segments a thread trains at once (in populations) */
  struct fox_err err;
  pthread_mutex_t lock;
  pthread_cond_t finished; /* a thread ran out of work: the watcher need not wait its 20 ms */
};

static void thread_done_(struct pool_ *p) {
  pthread_mutex_lock(&p->lock);
  p->running--;
  pthread_cond_broadcast(&p->finished);
  pthread_mutex_unlock(&p->lock);
}

static void fail_(struct pool_ *p, int rc, const struct fox_err *e) {
  pthread_mutex_lock(&p->lock);
  if (p->rc == 0) {
    p->rc = rc ? rc : FOX_EFAIL;
    p->err = *e;
  }
  pthread_mutex_unlock(&p->lock);
}

/* The next item: from the shared queue, or this pool's own counter. */
static int take_(struct pool_ *p) {
  pthread_mutex_lock(&p->lock);
  int stop = p->rc != 0 || (p->r->stop && *p->r->stop), i = -1;
  if (!stop && !p->q)
    i = p->next < p->n ? p->next++ : -1;
  pthread_mutex_unlock(&p->lock);
  if (!stop && p->q) {
    long k = p->q->next(p->q->ctx);
    i = k >= 0 && k < p->n ? (int)k : -1;
  }
  return i;
}

/* One thread's segments in training and their populations. */
struct crew_ {
  struct seg_ *seg[FOX_POP_MAX];
  int n;
  struct pop *pop[FOX_POP_MAX];
  int npop;
};

/* g joins a population of its shape and phase with room, or starts one. */
static int place_(struct pool_ *p, struct crew_ *c, struct seg_ *g, struct fox_err *e) {
  for (int k = 0; k < c->npop; k++) {
    struct fox_err no = {0};
    if (c->pop[k]->live < c->pop[k]->cap && pop_add(c->pop[k], &g->t, &no) == 0) {
      g->pop = c->pop[k];
      return 0;
    }
  }
  struct pop *q = malloc(sizeof *q);
  if (!q)
    return fox_errf(e, FOX_EFAIL, "runner: out of memory for a population");
  pop_init(q, p->r->be, p->members);
  int rc = pop_add(q, &g->t, e);
  if (rc != 0) {
    free(q);
    return rc;
  }
  c->pop[c->npop++] = q;
  g->pop = q;
  return 0;
}

/* Takes items until the crew is full: a test function runs at once, a config that cannot train
 * is recorded at once, an agent segment opens from its checkpoint and joins a population. */
static int admit_(struct pool_ *p, struct crew_ *c, struct fox_err *e) {
  struct runner *r = p->r;
  while (c->n < p->members) {
    int i = take_(p);
    if (i < 0)
      return 0;
    const struct work_item *it = &p->items[i];
    struct work_result *res = &p->res[i];
    result_start_(r, it, res);
    if (!r->have_data) {
      double t0 = now_();
      int rc = run_function_(r, it, res, e);
      res->seconds = now_() - t0;
      FOX_TRY(rc);
      continue;
    }
    struct seg_ *g = calloc(1, sizeof *g);
    if (!g)
      return fox_errf(e, FOX_EFAIL, "runner: out of memory for a segment");
    g->it = it, g->res = res, g->t0 = now_();
    int open, rc = seg_open_(r, g, &open, e);
    if (rc == 0 && open && seg_done_(g))
      rc = seg_finish_(r, g, 0, e), open = 0;
    if (rc == 0 && open) {
      rc = place_(p, c, g, e);
      if (rc != 0)
        trial_close(&g->t);
    }
    if (rc != 0 || !open) {
      free(g);
      FOX_TRY(rc);
      continue;
    }
    c->seg[c->n++] = g;
  }
  return 0;
}

/* Segment k leaves: finished (recorded) or stopped; an empty population goes. */
static int leave_(struct pool_ *p, struct crew_ *c, int k, int stopped, struct fox_err *e) {
  struct seg_ *g = c->seg[k];
  struct pop *q = g->pop;
  pop_remove(q, &g->t);
  int rc = seg_finish_(p->r, g, stopped, e);
  free(g);
  c->seg[k] = c->seg[--c->n];
  if (q->live == 0) {
    for (int j = 0; j < c->npop; j++)
      if (c->pop[j] == q)
        c->pop[j] = c->pop[--c->npop];
    pop_free(q);
    free(q);
  }
  return rc;
}

/* The trial's last epoch into the live metrics. */
static int live_(struct runner *r, const struct work_item *it, const struct trial *t,
                 struct fox_err *e) {
  const struct epoch_row *row = &t->r.curve[t->r.epochs_done - 1];
  const char *names[FOX_LIVE_METRICS];
  struct live_row lr = {it->trial, it->repeat, r->s->repeats, it->member, it->generation,
                        row->epoch, row->seconds, row->env_steps_per_s, row->loss, {0}, names};
  for (int m = 0; m < FOX_LIVE_METRICS; m++) {
    names[m] = r->s->metric_names[m];
    lr.metrics[m] = metrics_get(&row->eval, m);
  }
  return live_epoch(&r->live, &lr, e);
}

/* An epoch of population q, then each member's epoch end; the finished leave. */
static int epoch_(struct pool_ *p, struct crew_ *c, struct pop *q, struct fox_err *e) {
  double seconds;
  int rc = pop_train_epoch(q, p->r->stop, &seconds, e);
  if (rc == FOX_ESTOP) { /* every segment of the thread is abandoned */
    fox_err_clear(e);
    while (c->n)
      leave_(p, c, c->n - 1, 1, e);
    return FOX_ESTOP;
  }
  FOX_TRY(rc);
  struct trial *members[FOX_POP_MAX];
  struct seg_ *segs[FOX_POP_MAX];
  int n = 0, before[FOX_POP_MAX];
  for (int k = 0; k < c->n && n < FOX_POP_MAX; k++)
    if (c->seg[k]->pop == q) {
      segs[n] = c->seg[k];
      before[n] = c->seg[k]->t.r.epochs_done;
      members[n++] = &c->seg[k]->t;
    }
  FOX_TRY(trial_epochs_end(members, n, seconds, NULL, e));
  for (int k = 0; k < n; k++) /* the epochs that were evaluated, live */
    if (members[k]->r.epochs_done > before[k] &&
        members[k]->r.epochs_done > segs[k]->it->from_epochs) /* not those trained again */
      FOX_TRY(live_(p->r, segs[k]->it, members[k], e));
  for (int k = c->n - 1; k >= 0; k--)
    if (c->seg[k]->pop == q && seg_done_(c->seg[k]))
      FOX_TRY(leave_(p, c, k, 0, e));
  return 0;
}

/* A thread: its crew filled from the queue between epochs, each population trained an epoch
 * in turn, until no item is left. */
static void crew_run_(struct pool_ *p) {
  struct crew_ c = {0};
  struct fox_err e = {0};
  int rc = 0;
  for (;;) {
    rc = admit_(p, &c, &e);
    if (rc != 0 || c.n == 0)
      break;
    struct pop *order[FOX_POP_MAX];
    int npop = c.npop;
    memcpy(order, c.pop, (size_t)npop * sizeof *order);
    for (int k = 0; rc == 0 && k < npop; k++)
      rc = epoch_(p, &c, order[k], &e);
    if (rc == FOX_ESTOP) {
      rc = 0;
      break;
    }
    if (rc != 0)
      break;
  }
  if (rc != 0)
    fail_(p, rc, &e);
  while (c.n) /* after an error: what is left is not recorded */
    leave_(p, &c, c.n - 1, 1, &(struct fox_err){0});
}

static void *worker_(void *arg) {
  struct pool_ *p = arg;
  if (p->r->threads > 1 && p->members == 1) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    backend_cpu_threads(cores > p->r->threads ? (int)(cores / p->r->threads) : 1);
  }
  struct fox_err be = {0};
  if (p->r->be && p->r->be->bind(p->r->dev.device, &be) != 0)
    fail_(p, be.code, &be);
  else
    crew_run_(p);
  thread_done_(p);
  return NULL;
}

int runner_run(struct runner *r, const struct work_item *items, int n, struct work_result *res,
               const struct runner_queue *q, struct fox_err *e) {
  if (n <= 0)
    return 0;
  struct pool_ p = {r, items, res, q, n, 0, 0, 0, 1, {0}, PTHREAD_MUTEX_INITIALIZER,
                    PTHREAD_COND_INITIALIZER};
  /* A device trains the items it runs at once as populations on one thread; the CPU runs
   * each on a thread of its own. */
  int w = r->threads < n ? r->threads : n;
  if (r->be && r->be->populations && r->have_data) {
    p.members = w < FOX_POP_MAX ? w : FOX_POP_MAX;
    w = 1;
  }
  for (int i = 0; i < n; i++) /* not started: stopped, if anything stops the pool */
    res[i] = (struct work_result){
        .trial = items[i].trial, .repeat = items[i].repeat, .done = FOX_WORK_STOPPED};
  int watch = q && q->watch;
  if (w <= 1 && !watch) {
    p.running = 1;
    worker_(&p);
  } else {
    pthread_t tid[256];
    int started = 0;
    p.running = w;
    for (; started < w; started++)
      if (pthread_create(&tid[started], NULL, worker_, &p) != 0)
        break;
    pthread_mutex_lock(&p.lock);
    p.running -= w - started;
    pthread_mutex_unlock(&p.lock);
    if (started == 0)
      return fox_errf(e, FOX_EFAIL, "runner: cannot start a trial thread");
    for (int left = 1; watch && left;) {
      q->watch(q->ctx);
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += 20 * 1000 * 1000;
      if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
      }
      pthread_mutex_lock(&p.lock);
      if (p.running > 0)
        pthread_cond_timedwait(&p.finished, &p.lock, &until);
      left = p.running;
      pthread_mutex_unlock(&p.lock);
    }
    for (int i = 0; i < started; i++)
      pthread_join(tid[i], NULL);
  }
  if (p.rc != 0) {
    *e = p.err;
    return p.rc;
  }
  return 0;
}

/* pbt: a running row continues from its parent's checkpoint (and, with copy_buffers false, an
 * exploiting one takes the experience of its own previous row's): those rows' checkpoints at
 * that epoch stay, though the rows are complete. */
static int pbt_needed_(const struct study *s, int id, int repeat, int epochs) {
  int P = s->cfg.study.population;
  for (int i = id + 1; i < s->n && i <= id + 2 * P; i++) {
    const struct study_trial *t = &s->trials[i];
    if (t->status != FOX_ST_RUNNING || t->rep[repeat].rung >= 0)
      continue;
    int own = t->exploited && !s->cfg.study.copy_buffers && t->id - P == id;
    if ((t->parent == id || own) && s->trials[id].rep[repeat].epochs == epochs)
      return 1;
  }
  return 0;
}

/* A running trial's newer checkpoint may be a segment in flight (rank 0 prunes while the next
 * step runs): only older ones, and those of finished trials, are gone for good. */
static void prune_state_(const char *path, int id, int repeat, int epochs, void *ctx) {
  const struct study *s = ctx;
  int known = id >= 0 && id < s->n && repeat >= 0 && repeat < s->repeats;
  int needed = known && s->trials[id].status == FOX_ST_RUNNING &&
               epochs >= s->trials[id].rep[repeat].epochs;
  if (known && !needed && s->cfg.study.scheduler == FOX_SCHED_PBT)
    needed = pbt_needed_(s, id, repeat, epochs);
  if (!needed)
    remove(path);
}

void runner_prune_states(const char *outdir, const struct study *s) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/state", outdir);
  rankfile_each_epoch_file(dir, "trial-%d-e%d.h5%n", "trial-%d-r%d-e%d.h5%n", prune_state_,
                           (void *)s);
}
