/* Rank files: the uploaded dataset once, then one group per trial, replaced after each of its
 * segments. */
#include "study/rankfile.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "env/experience_h5.h"
#include "study/study_h5.h"
#include "train/trial_h5.h"
#include "util/fsutil.h"
#include "util/h5io.h"

void rankfile_path(const char *outdir, int rank, char *out, size_t n) {
  snprintf(out, n, "%s/rank-%04d.h5", outdir, rank);
}

/* Calls f(path) for every rank-NNNN.h5 in outdir; stops at the first non-zero. */
static int each_rank_file_(const char *outdir, int (*f)(const char *path, int rank, void *ctx),
                           void *ctx) {
  DIR *d = opendir(outdir);
  if (!d)
    return 0;
  int rc = 0;
  struct dirent *de;
  while (rc == 0 && (de = readdir(d))) {
    int rank, len = 0;
    if (sscanf(de->d_name, "rank-%d.h5%n", &rank, &len) != 1 || de->d_name[len] != '\0')
      continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", outdir, de->d_name);
    rc = f(path, rank, ctx);
  }
  closedir(d);
  return rc;
}

struct create_ctx_ {
  const struct backend *be;
  const struct device_dataset *dev;
  const char *data_path, *host, *device;
  int rank;
};

/* /dataset: what the device holds, read back from it, not the host copy it came from. */
static int dataset_group_(hid_t f, const struct create_ctx_ *c, struct fox_err *e) {
  size_t n = c->dev->n;
  float *feat = malloc(n * FOX_NFEAT * sizeof *feat), *px = malloc(n * 4 * sizeof *px);
  int rc = feat && px ? 0 : fox_errf(e, FOX_EFAIL, "rank file: out of memory for %zu bars", n);
  if (rc == 0)
    rc = c->be->dataset_download(c->dev, feat, px, NULL, e);
  hid_t g = rc == 0 ? H5Gcreate2(f, "dataset", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (rc == 0 && g < 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/dataset");
  if (rc == 0)
    rc = h5io_write(g, "features", H5T_NATIVE_FLOAT, feat, n, FOX_NFEAT, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "prices", H5T_NATIVE_FLOAT, px, n, 4, 0, e);
  if (rc == 0)
    rc = h5io_attr_write_str(g, "source", c->data_path, e);
  if (g >= 0)
    H5Gclose(g);
  free(feat);
  free(px);
  return rc;
}

static int create_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct create_ctx_ *c = ctx;
  FOX_TRY(h5io_attr_write_str(f, "kind", "rank", e));
  FOX_TRY(h5io_attr_write(f, "rank", H5T_NATIVE_INT, &c->rank, 1, e));
  FOX_TRY(h5io_attr_write_str(f, "host", c->host, e));
  FOX_TRY(h5io_attr_write_str(f, "device", c->device, e));
  FOX_TRY(h5io_attr_write_str(f, "backend", c->be ? c->be->name : "none", e));
  FOX_TRY(h5io_attr_write_str(f, "foxopt_version", FOXOPT_VERSION, e));
  if (c->dev)
    FOX_TRY(dataset_group_(f, c, e));
  hid_t g = H5Gcreate2(f, "trials", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "/trials");
  H5Gclose(g);
  return 0;
}

static hid_t open_rw_(const char *path, struct fox_err *e) {
  h5io_quiet();
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0)
    h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
  return f;
}

int rankfile_create(const char *outdir, int rank, const struct backend *be,
                    const struct device_dataset *dev, const char *data_path, const char *host,
                    const char *device, struct fox_err *e) {
  char path[4200];
  rankfile_path(outdir, rank, path, sizeof path);
  struct create_ctx_ c = {be, dev, data_path, host, device, rank};
  if (!fs_exists(path) || H5Fis_hdf5(path) <= 0)
    return h5io_create_atomic(path, create_body_, &c, e);
  /* A resumed study: the file goes on, and says where this run of the rank is. */
  hid_t f = open_rw_(path, e);
  if (f < 0)
    return e->code;
  int rc = 0;
  static const char *const attrs[] = {"host", "device", "backend"};
  const char *vals[] = {host, device, be ? be->name : "none"};
  for (int i = 0; rc == 0 && i < 3; i++) {
    if (H5Aexists(f, attrs[i]) > 0 && H5Adelete(f, attrs[i]) < 0)
      rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
    if (rc == 0)
      rc = h5io_attr_write_str(f, attrs[i], vals[i], e);
  }
  if (H5Fclose(f) < 0 && rc == 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
  return rc;
}

/* /trials/ID/params: one string attribute per active parameter, as --set takes it. */
static int params_group_(hid_t tg, const struct study *s, const double *x, struct fox_err *e) {
  hid_t g = H5Gcreate2(tg, "params", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "params");
  int rc = 0;
  for (int i = 0; rc == 0 && i < s->space.n; i++) {
    if (isnan(x[i]))
      continue;
    char v[FOX_CHOICE_LEN];
    space_format(&s->space.p[i], x[i], v, sizeof v);
    rc = h5io_attr_write_str(g, s->space.p[i].key, v, e);
  }
  H5Gclose(g);
  return rc;
}

static int trial_group_(hid_t tg, const struct study *s, const double *x, struct trial *t,
                        double value, const char *failed, struct fox_err *e) {
  FOX_TRY(params_group_(tg, s, x, e));
  if (failed) {
    FOX_TRY(h5io_attr_write_str(tg, "status", "failed", e));
    return h5io_attr_write_str(tg, "reason", failed, e);
  }
  if (!t)
    return h5io_attr_write(tg, "value", H5T_NATIVE_DOUBLE, &value, 1, e);
  FOX_TRY(trial_write_group(tg, &t->cfg, &t->ag, &t->r, e));
  const struct backtest_run *b = &t->last;
  if (!b->equity)
    return 0; /* failed before its first evaluation */
  size_t n = (size_t)(b->end - b->begin);
  hid_t g = H5Gcreate2(tg, "backtest", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "backtest");
  int rc = h5io_write(g, "equity", H5T_NATIVE_DOUBLE, b->equity, n, 0, 4, e);
  if (rc == 0)
    rc = h5io_write(g, "position", H5T_NATIVE_UINT8, b->position, n, 0, 4, e);
  H5Gclose(g);
  FOX_TRY(rc);
  return experience_write(tg, "experience", t->cfg.experience, n, b->actions, b->rewards,
                          b->labels, b->states, e);
}

/* The file of `rank` open for writing, the group name of trial `id`, and any old group of it
 * removed. */
static hid_t open_trial_(const char *outdir, int rank, int id, char *path, size_t np, char *name,
                         size_t nn, struct fox_err *e) {
  rankfile_path(outdir, rank, path, np);
  snprintf(name, nn, "/trials/%d", id);
  hid_t f = open_rw_(path, e);
  if (f >= 0 && h5io_exists(f, name) && H5Ldelete(f, name, H5P_DEFAULT) < 0) {
    h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name);
    H5Fclose(f);
    return -1;
  }
  return f;
}

int rankfile_put_trial(const char *outdir, int rank, const struct study *s, int id,
                       const double *x, int epochs, struct trial *t, double value,
                       const char *failed, struct fox_err *e) {
  char path[4200], name[64];
  hid_t f = open_trial_(outdir, rank, id, path, sizeof path, name, sizeof name, e);
  if (f < 0)
    return fox_err_wrap(e, "%s", path);
  int rc = 0;
  hid_t tg = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (tg < 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name);
  if (rc == 0)
    rc = h5io_attr_write(tg, "epochs", H5T_NATIVE_INT, &epochs, 1, e);
  if (rc == 0)
    rc = trial_group_(tg, s, x, t, value, failed, e);
  if (tg >= 0)
    H5Gclose(tg);
  if (H5Fclose(f) < 0 && rc == 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
  if (rc != 0)
    fox_err_wrap(e, "%s", path);
  return rc;
}

int rankfile_drop(const char *outdir, int rank, int id, struct fox_err *e) {
  char path[4200], name[64];
  hid_t f = open_trial_(outdir, rank, id, path, sizeof path, name, sizeof name, e);
  if (f < 0)
    return fox_err_wrap(e, "%s", path);
  if (H5Fclose(f) < 0)
    return h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
  return 0;
}

struct scrub_ {
  const struct study *s;
  int rank;
  char drop[4096][16];
  int n_drop;
};

static herr_t visit_(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  struct scrub_ *sc = data;
  char *end;
  long id = strtol(name, &end, 10);
  int keep = *end == '\0' && id >= 0 && id < sc->s->n && sc->s->trials[id].rank == sc->rank;
  if (keep) {
    int epochs = -1;
    hid_t tg = H5Gopen2(g, name, H5P_DEFAULT);
    if (tg >= 0) {
      if (H5Aexists(tg, "epochs") > 0) {
        hid_t a = H5Aopen(tg, "epochs", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &epochs) < 0)
          epochs = -1;
        if (a >= 0)
          H5Aclose(a);
      }
      H5Gclose(tg);
    }
    keep = epochs == sc->s->trials[id].epochs;
  }
  if (!keep && sc->n_drop < 4096)
    snprintf(sc->drop[sc->n_drop++], 16, "%s", name);
  return 0;
}

static int scrub_file_(const char *path, int rank, const struct study *s, struct fox_err *e) {
  hid_t f = open_rw_(path, e);
  if (f < 0)
    return e->code;
  struct scrub_ *sc = calloc(1, sizeof *sc);
  mallocCheck(sc, e);
  sc->s = s;
  sc->rank = rank;
  int rc = 0;
  hid_t g = H5Gopen2(f, "trials", H5P_DEFAULT);
  if (g >= 0) {
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, visit_, sc) < 0)
      rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
    for (int i = 0; rc == 0 && i < sc->n_drop; i++)
      if (H5Ldelete(g, sc->drop[i], H5P_DEFAULT) < 0)
        rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
    H5Gclose(g);
  }
  free(sc);
  if (H5Fclose(f) < 0 && rc == 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
  return rc;
}

struct scrub_args_ {
  const struct study *s;
  struct fox_err *e;
};

/* A rank file that cannot be scrubbed was damaged (a rank killed while it wrote: HDF5 changes
 * files in place): it is moved aside, the rank starts a new one, and rankfile_check names the
 * trials whose outputs went with it. The study itself lives in study.h5 and loses nothing. */
static int scrub_one_(const char *path, int rank, void *ctx) {
  struct scrub_args_ *a = ctx;
  int rc = scrub_file_(path, rank, a->s, a->e);
  if (rc == 0)
    return 0;
  char aside[4300];
  snprintf(aside, sizeof aside, "%s.damaged", path);
  if (rename(path, aside) != 0)
    return rc;
  fprintf(stderr, "foxopt run: warning: %s (moved to %s; the rank starts a new file)\n",
          a->e->msg, aside);
  fox_err_clear(a->e);
  return 0;
}

int rankfile_scrub(const char *outdir, const struct study *s, struct fox_err *e) {
  struct scrub_args_ a = {s, e};
  return each_rank_file_(outdir, scrub_one_, &a);
}

static int remove_one_(const char *path, int rank, void *ctx) {
  (void)rank;
  struct fox_err *e = ctx;
  if (remove(path) != 0)
    return fox_errf(e, FOX_EFAIL, "%s: cannot remove this rank file of an unfinished study: %s",
                    path, strerror(errno));
  fprintf(stderr, "foxopt run: removed %s (left by a run that recorded no step)\n", path);
  return 0;
}

int rankfile_remove_all(const char *outdir, struct fox_err *e) {
  return each_rank_file_(outdir, remove_one_, e);
}

int rankfile_check(const char *outdir, const struct study *s, FILE *warn) {
  int missing_total = 0, ranks = 0;
  for (int i = 0; i < s->n; i++)
    ranks = s->trials[i].rank >= ranks ? s->trials[i].rank + 1 : ranks;
  for (int rank = 0; rank < ranks; rank++) {
    int missing = 0;
    char path[4200], list[256] = "";
    rankfile_path(outdir, rank, path, sizeof path);
    hid_t f = -1;
    if (fs_exists(path)) {
      h5io_quiet();
      f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    }
    for (int i = 0; i < s->n; i++) {
      const struct study_trial *t = &s->trials[i];
      char name[32];
      snprintf(name, sizeof name, "/trials/%d", i);
      if (t->rank != rank || (f >= 0 && h5io_exists(f, name)))
        continue;
      if (missing++ < 8)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", missing > 1 ? ", " : "",
                 i);
    }
    if (f >= 0)
      H5Fclose(f);
    if (missing)
      fprintf(warn, "foxopt run: warning: %s lacks %d trial%s the study recorded there (%s%s): "
                    "their outputs are lost (backtest --study cannot replay them); the study "
                    "goes on\n", path, missing, missing > 1 ? "s" : "", list,
              missing > 8 ? ", ..." : "");
    missing_total += missing;
  }
  return missing_total;
}

int rankfile_read_policy(const char *outdir, long id, const struct backend *be,
                         struct config *cfg, struct agent *agent, char *backend, size_t nb,
                         struct fox_err *e) {
  struct study s;
  FOX_TRY(study_load(&s, outdir, e));
  int rc = 0, rank = -1;
  if (id < 0 || id >= s.n)
    rc = fox_errf(e, FOX_EDATA, "%s/study.h5: no trial %ld (it has %d)", outdir, id, s.n);
  else if (s.n_metrics == 1)
    rc = fox_errf(e, FOX_EDATA, "%s/study.h5: a test-function study: its trials have no policy",
                  outdir);
  else if (s.trials[id].epochs == 0 || s.trials[id].rank < 0)
    rc = fox_errf(e, FOX_EDATA, "%s/study.h5: trial %ld has not trained yet (%s)", outdir, id,
                  s.trials[id].status == FOX_ST_FAILED ? s.trials[id].reason : "no epoch done");
  else
    rank = s.trials[id].rank;
  study_free(&s);
  FOX_TRY(rc);
  char path[4200], name[64], where[4300];
  rankfile_path(outdir, rank, path, sizeof path);
  snprintf(name, sizeof name, "/trials/%ld", id);
  snprintf(where, sizeof where, "%s:%s", path, name);
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a rank file from foxopt run", &f, e));
  hid_t g = h5io_exists(f, name) ? H5Gopen2(f, name, H5P_DEFAULT) : -1;
  if (g < 0) {
    H5Fclose(f);
    return fox_errf(e, FOX_EDATA, "%s: missing (the study records trial %ld on rank %d)", where,
                    id, rank);
  }
  rc = h5io_attr_read_str(g, "backend", backend, nb, where, e);
  if (rc == 0 && be)
    rc = trial_read_group(g, where, be, cfg, agent, e);
  H5Gclose(g);
  H5Fclose(f);
  return rc;
}
