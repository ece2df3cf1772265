/* Rank files (the sums of the uploaded dataset and the host's stored copy, written once per
 * run) and trial files (one per trial,
 * replaced after each of its segments): every file is written whole under a temporary name and
 * renamed, so a full disk or a kill mid-write leaves the previous one intact. */
#include "study/rankfile.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env/experience_h5.h"
#include "study/study_h5.h"
#include "train/trial_h5.h"
#include "util/fsutil.h"
#include "util/h5io.h"

void rankfile_path(const char *outdir, int rank, char *out, size_t n) {
  snprintf(out, n, "%s/rank-%04d.h5", outdir, rank);
}

void rankfile_trial_path(const char *outdir, int id, int repeat, char *out, size_t n) {
  if (repeat == 0)
    snprintf(out, n, "%s/trials/%d.h5", outdir, id);
  else
    snprintf(out, n, "%s/trials/%d-r%d.h5", outdir, id, repeat);
}

/* Calls f(path, id, repeat) for every trials/ID.h5 and trials/ID-rR.h5 in outdir; stops at the
 * first non-zero. */
static int each_trial_file_(const char *outdir,
                            int (*f)(const char *path, int id, int repeat, void *ctx),
                            void *ctx) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/trials", outdir);
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int rc = 0;
  struct dirent *de;
  while (rc == 0 && (de = readdir(d))) {
    int id, repeat = 0, len = 0;
    if ((sscanf(de->d_name, "%d.h5%n", &id, &len) != 1 || de->d_name[len] != '\0') &&
        (sscanf(de->d_name, "%d-r%d.h5%n", &id, &repeat, &len) != 2 || de->d_name[len] != '\0'))
      continue;
    if (id < 0 || repeat < 0)
      continue;
    char path[4500];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    rc = f(path, id, repeat, ctx);
  }
  closedir(d);
  return rc;
}

/* Calls f(path, N) for every file of outdir named as `fmt` says ("rank-%d.h5%n": the rank
 * files; "dataset-%d.h5%n": the hosts' stored copies); stops at the first non-zero. */
static int each_numbered_(const char *outdir, const char *fmt,
                          int (*f)(const char *path, int rank, void *ctx), void *ctx) {
  DIR *d = opendir(outdir);
  if (!d)
    return 0;
  int rc = 0;
  struct dirent *de;
  while (rc == 0 && (de = readdir(d))) {
    int rank, len = 0;
    if (sscanf(de->d_name, fmt, &rank, &len) != 1 || de->d_name[len] != '\0')
      continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", outdir, de->d_name);
    rc = f(path, rank, ctx);
  }
  closedir(d);
  return rc;
}

static int each_rank_file_(const char *outdir, int (*f)(const char *path, int rank, void *ctx),
                           void *ctx) {
  return each_numbered_(outdir, "rank-%d.h5%n", f, ctx);
}

struct create_ctx_ {
  const struct backend *be;
  const struct device_dataset *dev;
  const char *data_path, *copy, *host, *device;
  int rank, local_rank, local_size;
};

/* /dataset: the crc32 sums of what the device holds, read back from it after the upload, and
 * the name of the host's stored copy (in OUTDIR) they must match: no rank stores arrays of its
 * own (issue 28: 8 ranks of a host would write 8 identical gigabytes). */
static int dataset_group_(hid_t f, const struct create_ctx_ *c, struct fox_err *e) {
  if (!c->dev->summed || !c->copy)
    return fox_errf(e, FOX_EFAIL, "%s:%d: rank file: a dataset without device sums or copy",
                    __FILE__, __LINE__);
  int64_t bars = (int64_t)c->dev->n;
  hid_t g = H5Gcreate2(f, "dataset", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = g < 0 ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/dataset") : 0;
  if (rc == 0)
    rc = h5io_attr_write(g, "bars", H5T_NATIVE_INT64, &bars, 1, e);
  if (rc == 0)
    rc = h5io_attr_write(g, "features_crc32", H5T_NATIVE_UINT32, &c->dev->crc_features, 1, e);
  if (rc == 0)
    rc = h5io_attr_write(g, "prices_crc32", H5T_NATIVE_UINT32, &c->dev->crc_prices, 1, e);
  if (rc == 0)
    rc = h5io_attr_write_str(g, "copy", c->copy, e);
  if (rc == 0)
    rc = h5io_attr_write_str(g, "source", c->data_path, e);
  if (g >= 0)
    H5Gclose(g);
  return rc;
}

/* The sums and copy a rank file's /dataset records. */
struct dataset_sums_ {
  size_t bars;
  uint32_t crc[2];
  char copy[256];
};

static int read_sums_(hid_t f, const char *path, struct dataset_sums_ *d, struct fox_err *e) {
  hid_t g = H5Gopen2(f, "/dataset", H5P_DEFAULT);
  if (g < 0)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, "/dataset");
  int64_t bars = -1;
  int rc = h5io_attr_read(g, "bars", H5T_NATIVE_INT64, &bars, 1, path, e);
  if (rc == 0)
    rc = h5io_attr_read(g, "features_crc32", H5T_NATIVE_UINT32, &d->crc[0], 1, path, e);
  if (rc == 0)
    rc = h5io_attr_read(g, "prices_crc32", H5T_NATIVE_UINT32, &d->crc[1], 1, path, e);
  if (rc == 0)
    rc = h5io_attr_read_str(g, "copy", d->copy, sizeof d->copy, path, e);
  H5Gclose(g);
  if (rc == 0 && (bars < 0 || strchr(d->copy, '/') || !d->copy[0]))
    rc = fox_errf(e, FOX_EDATA, "%s: /dataset: bars %lld and copy '%s', expected a count and "
                                "a file name in the rank file's directory", path,
                  (long long)bars, d->copy);
  d->bars = (size_t)bars;
  return rc;
}

/* FOX_EDATA naming the rank file when its device's sums are not those of the stored copy. */
static int compare_sums_(const char *path, const struct dataset_sums_ *d, const char *copy_path,
                         size_t bars, const uint32_t crc[2], struct fox_err *e) {
  static const char *const names[2] = {"features", "prices"};
  if (bars != d->bars)
    return fox_errf(e, FOX_EDATA, "%s: /dataset: the device holds %zu bars, the stored copy %s "
                                  "%zu", path, d->bars, copy_path, bars);
  for (int i = 0; i < 2; i++)
    if (crc[i] != d->crc[i])
      return fox_errf(e, FOX_EDATA, "%s: /dataset: the device's %s have crc32 %08x, the stored "
                                    "copy %s has %08x: this device did not receive the dataset "
                                    "its host stored", path, names[i], d->crc[i], copy_path,
                      crc[i]);
  return 0;
}

static void dir_of_(const char *path, char *out, size_t n) {
  const char *slash = strrchr(path, '/');
  if (slash)
    snprintf(out, n, "%.*s", (int)(slash - path), path);
  else
    snprintf(out, n, ".");
}

int rankfile_verify(const char *outdir, int rank, struct fox_err *e) {
  char path[4200];
  rankfile_path(outdir, rank, path, sizeof path);
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a rank file from foxopt run", &f, e));
  int has = h5io_find(f, "/dataset", path, e);
  struct dataset_sums_ d;
  int rc = has < 0 ? has : has ? read_sums_(f, path, &d, e) : 0;
  H5Fclose(f);
  if (rc != 0 || !has)
    return rc;
  char copy_path[4500];
  snprintf(copy_path, sizeof copy_path, "%s/%s", outdir, d.copy);
  size_t bars;
  uint32_t crc[2];
  FOX_TRY(dataset_copy_sums(copy_path, &bars, crc, e));
  return compare_sums_(path, &d, copy_path, bars, crc, e);
}

int rankfile_info_copy(const char *path, struct fox_err *e) {
  size_t bars;
  uint32_t crc[2];
  size_t width = 0;
  FOX_TRY(dataset_copy_verify(path, &bars, crc, &width, e));
  printf("%s: foxopt dataset copy (a host's, for its ranks' files)\n", path);
  printf("  dataset        %zu bars x %zu features (f32): crc32 %08x, prices %08x, read through\n",
         bars, width, crc[0], crc[1]);
  return 0;
}

int rankfile_info_dataset(hid_t f, const char *path, struct fox_err *e) {
  /* A rank file of a foxopt before the stored copies holds the arrays themselves. */
  if (h5io_exists(f, "/dataset/features") > 0) {
    size_t n, d1;
    FOX_TRY(h5io_dims(f, "/dataset/features", &n, &d1, path, e));
    printf("  dataset        %zu bars x %zu features (f32, as uploaded)\n", n, d1);
    return 0;
  }
  struct dataset_sums_ d;
  FOX_TRY(read_sums_(f, path, &d, e));
  char dir[4200], copy_path[4500];
  dir_of_(path, dir, sizeof dir);
  snprintf(copy_path, sizeof copy_path, "%s/%s", dir, d.copy);
  size_t bars;
  uint32_t crc[2];
  /* The copy's arrays read through: its sums must be its own before they prove anything. */
  size_t width = 0;
  FOX_TRY(dataset_copy_verify(copy_path, &bars, crc, &width, e));
  FOX_TRY(compare_sums_(path, &d, copy_path, bars, crc, e));
  printf("  dataset        %zu bars x %zu features (f32, as uploaded): crc32 %08x, prices "
         "%08x, the same as the stored copy %s\n", d.bars, width, d.crc[0], d.crc[1],
         d.copy);
  return 0;
}

static int create_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct create_ctx_ *c = ctx;
  FOX_TRY(h5io_attr_write_str(f, "kind", "rank", e));
  FOX_TRY(h5io_attr_write(f, "rank", H5T_NATIVE_INT, &c->rank, 1, e));
  FOX_TRY(h5io_attr_write_str(f, "host", c->host, e));
  FOX_TRY(h5io_attr_write(f, "local_rank", H5T_NATIVE_INT, &c->local_rank, 1, e));
  FOX_TRY(h5io_attr_write(f, "local_size", H5T_NATIVE_INT, &c->local_size, 1, e));
  FOX_TRY(h5io_attr_write_str(f, "device", c->device, e));
  FOX_TRY(h5io_attr_write_str(f, "backend", c->be ? c->be->name : "none", e));
  FOX_TRY(h5io_attr_write_str(f, "foxopt_version", FOXOPT_VERSION, e));
  if (c->dev)
    FOX_TRY(dataset_group_(f, c, e));
  return 0;
}

/* Whether the rank file at `path` is readable and records this run's host, local rank, device
 * and backend and, with a dataset, this device's sums and copy. */
static int same_place_(const char *path, const struct create_ctx_ *c) {
  if (!fs_is_regular(path))
    return 0; /* a FIFO would block the open: replaced like any other */
  h5io_quiet();
  hid_t f = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  struct fox_err ignore = {0};
  const char *want[3] = {c->host, c->device, c->be ? c->be->name : "none"};
  static const char *const names[3] = {"host", "device", "backend"};
  int same = 1;
  for (int i = 0; same && i < 3; i++) {
    char v[256];
    same = h5io_attr_read_str(f, names[i], v, sizeof v, path, &ignore) == 0 &&
           strcmp(v, want[i]) == 0;
  }
  int local[2] = {-1, -1};
  same = same && h5io_attr_read(f, "local_rank", H5T_NATIVE_INT, &local[0], 1, path, &ignore) == 0 &&
         h5io_attr_read(f, "local_size", H5T_NATIVE_INT, &local[1], 1, path, &ignore) == 0 &&
         local[0] == c->local_rank && local[1] == c->local_size;
  struct dataset_sums_ d;
  if (same && c->dev)
    same = read_sums_(f, path, &d, &ignore) == 0 && d.bars == c->dev->n &&
           d.crc[0] == c->dev->crc_features && d.crc[1] == c->dev->crc_prices &&
           strcmp(d.copy, c->copy) == 0;
  H5Eclear2(H5E_DEFAULT);
  H5Fclose(f);
  return same;
}

int rankfile_create(const char *outdir, int rank, int local_rank, int local_size,
                    const struct backend *be, const struct device_dataset *dev,
                    const char *data_path, const char *copy, const char *host,
                    const char *device, struct fox_err *e) {
  char path[4200];
  rankfile_path(outdir, rank, path, sizeof path);
  struct create_ctx_ c = {be, dev, data_path, copy, host, device, rank, local_rank, local_size};
  /* A resume on the same host, device and backend whose device holds the same sums keeps the
   * file; elsewhere it is written anew. Never changed in place. */
  if (fs_exists(path) && same_place_(path, &c))
    return 0;
  return h5io_create_own(path, create_body_, &c, e);
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
  /* The folds' bars (each restarts from initial capital: no return across a bound) and their
   * metrics, for the report's per-bar returns and the walk-forward table. */
  if (rc == 0)
    rc = h5io_write(g, "folds", H5T_NATIVE_INT32, b->folds, (size_t)b->nfolds, 2, 0, e);
  double *fm = rc == 0 ? malloc((size_t)b->nfolds * FOX_NMETRICS * sizeof *fm) : NULL;
  if (rc == 0 && !fm)
    rc = fox_errf(e, FOX_EFAIL, "trial file: out of memory");
  for (int j = 0; rc == 0 && j < b->nfolds; j++)
    for (int m = 0; m < FOX_NMETRICS; m++)
      fm[j * FOX_NMETRICS + m] = metrics_get(&b->fold_metrics[j], m);
  if (rc == 0)
    rc = h5io_write(g, "fold_metrics", H5T_NATIVE_DOUBLE, fm, (size_t)b->nfolds, FOX_NMETRICS, 0,
                    e);
  free(fm);
  H5Gclose(g);
  FOX_TRY(rc);
  return experience_write(tg, "experience", t->cfg.experience, n, b->actions, b->rewards,
                          b->labels, b->states, b->state_dim, e);
}

struct put_ctx_ {
  const struct study *s;
  const double *x;
  struct trial *t;
  double value;
  const char *failed;
  int epochs, rank, repeat;
};

static int put_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct put_ctx_ *c = ctx;
  /* An agent trial's file is a trial.h5 (kind "trial": info and backtest --policy read it);
   * a test-function or failed one says what it is. */
  if (!c->t || c->failed)
    FOX_TRY(h5io_attr_write_str(f, "kind", "study trial", e));
  FOX_TRY(h5io_attr_write(f, "epochs", H5T_NATIVE_INT, &c->epochs, 1, e));
  FOX_TRY(h5io_attr_write(f, "rank", H5T_NATIVE_INT, &c->rank, 1, e));
  FOX_TRY(h5io_attr_write(f, "repeat", H5T_NATIVE_INT, &c->repeat, 1, e));
  return trial_group_(f, c->s, c->x, c->t, c->value, c->failed, e);
}

/* trials/ID.h5.eE: a trial's file of E epochs, kept (a hard link) when its next segment's file
 * replaces it, until study.h5 records a later one. Rank 0 writes study.h5 at most every 2 s, so
 * a trial can be a segment or two ahead of it: a run killed then resumes with the file the
 * study recorded (rankfile_scrub) instead of losing the trial's outputs until the segment has
 * run again. Without hard links (a file system that has none) there is no such net. */
static void version_path_(const char *path, int epochs, char *out, size_t n) {
  snprintf(out, n, "%s.e%d", path, epochs);
}

/* The epochs a trial file says it holds; -1 when it cannot say (not HDF5, no attribute). */
static int file_epochs_(const char *path) {
  int epochs = -1;
  h5io_quiet();
  hid_t f = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  if (f >= 0) {
    if (H5Aexists(f, "epochs") > 0) {
      hid_t a = H5Aopen(f, "epochs", H5P_DEFAULT);
      if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &epochs) < 0)
        epochs = -1;
      if (a >= 0)
        H5Aclose(a);
    }
    H5Fclose(f);
  }
  H5Eclear2(H5E_DEFAULT);
  return epochs;
}

int rankfile_put_trial(const char *outdir, int rank, const struct study *s, int id, int repeat,
                       const double *x, int epochs, struct trial *t, double value,
                       const char *failed, struct fox_err *e) {
  char dir[4200], path[4200], ver[4300];
  snprintf(dir, sizeof dir, "%s/trials", outdir);
  FOX_TRY(fs_mkdirs(dir, e));
  rankfile_trial_path(outdir, id, repeat, path, sizeof path);
  int old = fs_is_regular(path) ? file_epochs_(path) : -1;
  if (old >= 0 && old != epochs) {
    version_path_(path, old, ver, sizeof ver);
    remove(ver);
    if (link(path, ver) != 0)
      remove(ver);
  }
  struct put_ctx_ c = {s, x, t, value, failed, epochs, rank, repeat};
  return h5io_create_own(path, put_body_, &c, e);
}

/* The trial's kept file of the epochs the study recorded put back in place of `path`, when it
 * holds them and reads back whole: 1. */
static int restore_version_(const char *path, int recorded) {
  char ver[4300];
  version_path_(path, recorded, ver, sizeof ver);
  struct fox_err v = {0};
  struct stat st; /* lstat: a link planted under a version's name is not put in place */
  if (recorded <= 0 || lstat(ver, &st) != 0 || !S_ISREG(st.st_mode) ||
      file_epochs_(ver) != recorded ||
      h5io_verify(ver, 1, &v) != 0)
    return 0;
  return rename(ver, path) == 0;
}

/* A trial file is kept when it holds the segment the study recorded (its epochs) and every
 * dataset reads back as written (h5io_verify: its checksums); one the study did not record (a
 * run stopped between the file and study.h5), cannot be read (a damaged copy from before files
 * were atomic) or is damaged gives way to the trial's kept file of the recorded epochs, or
 * goes, and rankfile_check names what is lost: damaged is missing. */
static int scrub_one_(const char *path, int id, int repeat, void *ctx) {
  const struct study *s = ctx;
  int known = id < s->n && repeat < s->repeats;
  int recorded = known ? s->trials[id].rep[repeat].epochs : -1;
  if (!fs_is_regular(path)) { /* a FIFO would block the open */
    fprintf(stderr, "foxopt run: warning: %s: not a regular file (a FIFO, device or socket): "
                    "removed\n", path);
    remove(path);
    return 0;
  }
  int epochs = file_epochs_(path), same = known && epochs >= 0 && epochs == recorded;
  struct fox_err v = {0};
  if (same && h5io_verify(path, 1, &v) == 0)
    return 0;
  /* damaged, or replaced by a segment the study had not recorded: its kept file, if any */
  if (known && restore_version_(path, recorded))
    return 0;
  if (same)
    fprintf(stderr, "foxopt run: warning: %s: removed\n", v.msg);
  else if (epochs < 0)
    fprintf(stderr, "foxopt run: warning: %s cannot be read: removed\n", path);
  /* else one the study had not recorded yet when the run stopped: its segment runs again */
  remove(path);
  return 0;
}

void rankfile_each_epoch_file(const char *dir, const char *one, const char *rep,
                              void (*f)(const char *path, int id, int repeat, int epochs,
                                        void *ctx),
                              void *ctx) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d))) {
    int id, repeat = 0, epochs, len = 0;
    if ((sscanf(de->d_name, one, &id, &epochs, &len) != 2 || de->d_name[len] != '\0') &&
        (sscanf(de->d_name, rep, &id, &repeat, &epochs, &len) != 3 || de->d_name[len] != '\0'))
      continue;
    char path[4500];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    f(path, id, repeat, epochs, ctx);
  }
  closedir(d);
}

static void drop_version_(const char *path, int id, int repeat, int epochs, void *ctx) {
  const struct study *s = ctx;
  int known = s && id >= 0 && id < s->n && repeat >= 0 && repeat < s->repeats;
  if (!known || epochs < s->trials[id].rep[repeat].epochs) /* else study.h5 may record it */
    remove(path);
}

void rankfile_drop_versions(const char *outdir, const struct study *s) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/trials", outdir);
  rankfile_each_epoch_file(dir, "%d.h5.e%d%n", "%d-r%d.h5.e%d%n", drop_version_, (void *)s);
}

int rankfile_scrub(const char *outdir, const struct study *s, struct fox_err *e) {
  (void)e;
  FOX_TRY(each_trial_file_(outdir, scrub_one_, (void *)s));
  rankfile_drop_versions(outdir, NULL);
  return 0;
}

static int remove_one_(const char *path, int rank, void *ctx) {
  (void)rank;
  struct fox_err *e = ctx;
  if (remove(path) != 0)
    return fox_errf(e, FOX_EFAIL, "%s: cannot remove this file of an unfinished study: %s",
                    path, strerror(errno));
  fprintf(stderr, "foxopt run: removed %s (left by a run that recorded no step)\n", path);
  return 0;
}

static int remove_trial_(const char *path, int id, int repeat, void *ctx) {
  (void)repeat;
  return remove_one_(path, id, ctx);
}

int rankfile_remove_all(const char *outdir, struct fox_err *e) {
  FOX_TRY(each_rank_file_(outdir, remove_one_, e));
  FOX_TRY(each_numbered_(outdir, "dataset-%d.h5%n", remove_one_, e));
  FOX_TRY(each_trial_file_(outdir, remove_trial_, e));
  rankfile_drop_versions(outdir, NULL); /* a dead study's: never this one's to restore */
  /* The test looks of a study that is gone name its trial ids, not this study's. */
  char path[4200];
  snprintf(path, sizeof path, "%s/test.h5", outdir);
  if (fs_exists(path)) {
    if (remove(path) != 0)
      return fox_errf(e, FOX_EFAIL, "%s: cannot remove the test looks of a study that is gone: "
                                    "%s", path, strerror(errno));
    fprintf(stderr, "foxopt run: removed %s (the test looks of a study whose study.h5 is "
                    "gone)\n", path);
  }
  return 0;
}

/* NAME.tmp.PID: a file fs_temp_name named, left by a run that died or failed while writing;
 * NAME one of foxopt's kinds (.h5, .csv, .jsonl, .html, .png), so that a user's own
 * "notes.tmp.2024" beside the study (or in a state/ linked to scratch) is left alone. */
static int is_temp_(const char *name) {
  const char *t = strstr(name, ".tmp.");
  if (!t || t == name)
    return 0;
  static const char *const kinds[] = {".h5", ".csv", ".jsonl", ".html", ".png"};
  int ours = 0;
  for (int i = 0; i < 5; i++) {
    size_t k = strlen(kinds[i]);
    ours |= (size_t)(t - name) > k && strncmp(t - k, kinds[i], k) == 0;
  }
  if (!ours)
    return 0;
  t += 5;
  if (!*t)
    return 0;
  for (; *t; t++)
    if (*t < '0' || *t > '9')
      return 0;
  return 1;
}

int rankfile_remove_temps(const char *outdir, struct fox_err *e) {
  static const char *const sub[] = {"", "/trials", "/state"};
  for (int i = 0; i < 3; i++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s%s", outdir, sub[i]);
    DIR *d = opendir(dir);
    if (!d)
      continue;
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
      if (!is_temp_(de->d_name))
        continue;
      char path[4500];
      snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
      if (remove(path) != 0)
        rc = fox_errf(e, FOX_EFAIL, "%s: cannot remove this unfinished file: %s", path,
                      strerror(errno));
    }
    closedir(d);
    FOX_TRY(rc);
  }
  return 0;
}

/* A rank file of the layout before trial files: /trials/ID groups in it. */
static int old_layout_(const char *path, int rank, void *ctx) {
  (void)rank;
  struct fox_err *e = ctx;
  if (!fs_is_regular(path))
    return 0; /* a FIFO would block the open: written anew like any rank file */
  h5io_quiet();
  hid_t f = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0; /* unreadable: written anew like any rank file */
  }
  hsize_t n = 0;
  if (H5Lexists(f, "trials", H5P_DEFAULT) > 0) {
    hid_t g = H5Gopen2(f, "trials", H5P_DEFAULT);
    H5G_info_t gi;
    if (g >= 0 && H5Gget_info(g, &gi) >= 0)
      n = gi.nlinks;
    if (g >= 0)
      H5Gclose(g);
  }
  H5Eclear2(H5E_DEFAULT);
  H5Fclose(f);
  if (n > 0)
    return fox_errf(e, FOX_EDATA, "%s holds %llu trials' outputs as /trials groups, the layout "
                                  "of a foxopt before trial files (OUTDIR/trials/ID.h5): this "
                                  "foxopt would rewrite the file without them; finish the study "
                                  "with the foxopt that started it, or start afresh elsewhere",
                    path, (unsigned long long)n);
  return 0;
}

int rankfile_check_layout(const char *outdir, struct fox_err *e) {
  return each_rank_file_(outdir, old_layout_, e);
}

int rankfile_check(const char *outdir, const struct study *s, FILE *warn) {
  int missing = 0;
  char list[256] = "";
  for (int i = 0; i < s->n; i++)
    for (int r = 0; r < s->repeats; r++) {
      char path[4200];
      rankfile_trial_path(outdir, i, r, path, sizeof path);
      const struct study_rep *rp = &s->trials[i].rep[r];
      if (rp->epochs == 0 || rp->rank < 0 || fs_exists(path))
        continue;
      size_t at = strlen(list);
      if (missing++ >= 8)
        continue;
      if (r == 0)
        snprintf(list + at, sizeof list - at, "%s%d", at ? ", " : "", i);
      else
        snprintf(list + at, sizeof list - at, "%s%d-r%d", at ? ", " : "", i, r);
    }
  if (missing)
    fprintf(warn, "foxopt run: warning: %s/trials lacks %d trial%s the study recorded (%s%s): "
                  "their outputs are lost (backtest --study cannot replay them); the study goes "
                  "on\n", outdir, missing, missing > 1 ? "s" : "", list, missing > 8 ? ", ..." : "");
  return missing;
}

int rankfile_read_policy(const char *outdir, long id, int repeat, const struct backend *be,
                         struct config *cfg, struct agent *agent, char *backend, size_t nb,
                         struct fox_err *e) {
  struct study s;
  FOX_TRY(study_load(&s, outdir, e));
  int rc = 0, rank = -1;
  if (id < 0 || id >= s.n)
    rc = fox_errf(e, FOX_EDATA, "%s/study.h5: no trial %ld (it has %d)", outdir, id, s.n);
  else if (s.cfg.study.function != 0)
    rc = fox_errf(e, FOX_EDATA, "%s/study.h5: a test-function study: its trials have no policy",
                  outdir);
  else if (repeat < 0 || repeat >= s.repeats)
    rc = fox_errf(e, FOX_EUSAGE, "--repeat %d: the study in %s runs %d repeat%s (0 .. %d)",
                  repeat, outdir, s.repeats, s.repeats > 1 ? "s" : "", s.repeats - 1);
  else if (s.trials[id].rep[repeat].epochs == 0 || s.trials[id].rep[repeat].rank < 0)
    rc = fox_errf(e, FOX_EDATA, "%s/study.h5: trial %ld%s has not trained yet (%s)", outdir, id,
                  repeat ? " of that repeat" : "",
                  s.trials[id].status == FOX_ST_FAILED ? s.trials[id].reason : "no epoch done");
  else
    rank = s.trials[id].rep[repeat].rank;
  study_free(&s);
  FOX_TRY(rc);
  char path[4200];
  rankfile_trial_path(outdir, (int)id, repeat, path, sizeof path);
  if (!fs_exists(path))
    return fox_errf(e, FOX_EDATA, "%s: missing (the study records trial %ld, last run on rank "
                                  "%d)", path, id, rank);
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a trial file from foxopt run", &f, e));
  rc = trial_backend_group(f, path, backend, nb, e);
  if (rc == 0 && be)
    rc = trial_read_group(f, path, be, cfg, agent, e);
  H5Fclose(f);
  return rc;
}
