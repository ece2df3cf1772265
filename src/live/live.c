/* metrics.jsonl (jansson) and the TensorBoard directories of a study's live metrics. */
#include "live/live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "live/tfevents.h"
#include "util/fsutil.h"

void live_open(struct live *l, const char *outdir, int tensorboard, int rank) {
  memset(l, 0, sizeof *l);
  snprintf(l->outdir, sizeof l->outdir, "%s", outdir);
  l->tensorboard = tensorboard;
  l->rank = rank;
  pthread_mutex_init(&l->lock, NULL);
}

int live_check(int tensorboard, struct fox_err *e) { return tensorboard ? tfevents_ready(e) : 0; }

void live_close(struct live *l) { pthread_mutex_destroy(&l->lock); }

static json_t *num_(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static double now_(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* The run directory of a row under OUTDIR/tb. */
/* A run's name under tb/: trial-ID or member-M, with -rR when the study has repeats. */
static void run_name_(int member, int id, int repeat, int repeats, char *out, size_t n) {
  char rep[32] = "";
  if (repeats > 1)
    snprintf(rep, sizeof rep, "-r%d", repeat);
  snprintf(out, n, "%s-%d%s", member ? "member" : "trial", id, rep);
}

static void tb_dir_(const struct live *l, const struct live_row *r, char *out, size_t n) {
  int pbt = r->member >= 0;
  char name[96];
  run_name_(pbt, pbt ? r->member : r->trial, r->repeat, r->repeats, name, sizeof name);
  snprintf(out, n, "%s/tb/%s", l->outdir, name);
}

static int line_(const struct live *l, const struct live_row *r, double wall, char **text) {
  char when[40];
  time_t secs = (time_t)wall;
  struct tm tm;
  gmtime_r(&secs, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  json_t *o = json_pack("{s:i, s:i}", "trial", r->trial, "repeat", r->repeat);
  if (o && r->member >= 0) {
    json_object_set_new(o, "member", json_integer(r->member));
    json_object_set_new(o, "generation", json_integer(r->generation));
  }
  if (o) {
    json_object_set_new(o, "epoch", json_integer(r->epoch));
    json_object_set_new(o, "time", json_string(when));
    json_object_set_new(o, "rank", json_integer(l->rank));
    json_object_set_new(o, "seconds", num_(r->seconds));
    json_object_set_new(o, "env_steps_per_s", num_(r->env_steps_per_s));
    json_object_set_new(o, "loss", num_(r->loss));
    for (int m = 0; m < FOX_LIVE_METRICS; m++)
      json_object_set_new(o, r->names[m], num_(r->metrics[m]));
  }
  *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
  json_decref(o);
  return *text ? 0 : -1;
}

int live_epoch(struct live *l, const struct live_row *r, struct fox_err *e) {
  double wall = now_();
  char *text;
  if (line_(l, r, wall, &text) != 0)
    return fox_errf(e, FOX_EFAIL, "out of memory for a line of metrics.jsonl");
  size_t len = strlen(text);
  char *full = realloc(text, len + 2);
  if (!full) {
    free(text);
    return fox_errf(e, FOX_EFAIL, "out of memory for a line of metrics.jsonl");
  }
  full[len++] = '\n';
  char path[4200];
  snprintf(path, sizeof path, "%s/metrics.jsonl", l->outdir);
  pthread_mutex_lock(&l->lock);
  /* One write with O_APPEND: ranks on one file system append whole lines side by side. */
  int fd = fs_append_open(path, "a line of metrics", e);
  int rc = fd < 0                                 ? e->code
           : write(fd, full, len) == (ssize_t)len ? 0
               : fox_errf(e, FOX_EFAIL, "%s: cannot append a line: %s", path, strerror(errno));
  if (fd >= 0 && close(fd) != 0 && rc == 0)
    rc = fox_errf(e, FOX_EFAIL, "%s: cannot append a line: %s", path, strerror(errno));
  if (rc == 0 && l->tensorboard) {
    const char *tags[3 + FOX_LIVE_METRICS];
    char names[FOX_LIVE_METRICS][64];
    double vals[3 + FOX_LIVE_METRICS];
    tags[0] = "train/env_steps_per_s", vals[0] = r->env_steps_per_s;
    tags[1] = "train/loss", vals[1] = r->loss;
    tags[2] = "train/seconds", vals[2] = r->seconds;
    for (int m = 0; m < FOX_LIVE_METRICS; m++) {
      /* val.sharpe -> val/sharpe: TensorBoard groups by the prefix */
      snprintf(names[m], sizeof names[m], "%s", r->names[m]);
      char *dot = strchr(names[m], '.');
      if (dot)
        *dot = '/';
      tags[3 + m] = names[m];
      vals[3 + m] = r->metrics[m];
    }
    char dir[4400];
    tb_dir_(l, r, dir, sizeof dir);
    rc = tfevents_append(dir, r->epoch, wall, tags, vals, 3 + FOX_LIVE_METRICS, e);
  }
  pthread_mutex_unlock(&l->lock);
  free(full);
  return rc;
}

/* metrics.jsonl without the lines of epochs the study did not record (or that do not parse:
 * a line cut by a kill). */
static int prune_lines_(const char *outdir, int (*recorded)(const void *, int, int, int),
                        const void *ctx, struct fox_err *e) {
  char path[4200];
  snprintf(path, sizeof path, "%s/metrics.jsonl", outdir);
  void *buf;
  size_t len;
  if (access(path, F_OK) != 0)
    return 0;
  FOX_TRY(fs_read_bytes(path, "foxopt's metrics.jsonl", &buf, &len, e));
  char *text = buf, *out = malloc(len + 1);
  if (!out) {
    free(buf);
    return fox_errf(e, FOX_EFAIL, "out of memory pruning %s", path);
  }
  size_t put = 0;
  for (size_t at = 0; at < len;) {
    char *nl = memchr(text + at, '\n', len - at);
    if (!nl)
      break; /* a last line without its newline was cut short */
    size_t n = (size_t)(nl - (text + at)) + 1;
    json_t *o = json_loadb(text + at, n, 0, NULL);
    json_t *t = json_object_get(o, "trial"), *r = json_object_get(o, "repeat"),
           *ep = json_object_get(o, "epoch");
    if (json_is_integer(t) && json_is_integer(r) && json_is_integer(ep) &&
        json_integer_value(ep) <= recorded(ctx, (int)json_integer_value(t),
                                           (int)json_integer_value(r), 0)) {
      memcpy(out + put, text + at, n);
      put += n;
    }
    json_decref(o);
    at += n;
  }
  int rc = put == len ? 0 : fs_write_own(path, out, put, e);
  free(out);
  free(buf);
  return rc;
}

int live_prune(const char *outdir, int repeats,
               int (*recorded)(const void *, int, int, int), const void *ctx,
               struct fox_err *e) {
  FOX_TRY(prune_lines_(outdir, recorded, ctx, e));
  char tb[4200];
  snprintf(tb, sizeof tb, "%s/tb", outdir);
  DIR *d = opendir(tb);
  if (!d)
    return 0;
  int rc = 0;
  struct dirent *de;
  while (rc == 0 && (de = readdir(d))) {
    int id, repeat = 0, member = strncmp(de->d_name, "member-", 7) == 0;
    if (sscanf(de->d_name, member ? "member-%d-r%d" : "trial-%d-r%d", &id, &repeat) < 1 ||
        id < 0 || repeat < 0)
      continue;
    /* foxopt's names exactly, as it writes them: a user's trial-0-r0.notes, trial-01 or a
     * trial-1-r0 of a study without repeats beside them is not touched */
    char name[96];
    run_name_(member, id, repeat, repeats, name, sizeof name);
    if (strcmp(name, de->d_name) != 0)
      continue;
    char dir[4500];
    snprintf(dir, sizeof dir, "%s/%s", tb, de->d_name);
    struct stat st;
    if (lstat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
      /* a link (or anything but foxopt's directory) in its place: taken away, never followed,
       * so the run's events go to a directory of its own and what it named stays whole */
      if (unlink(dir) != 0)
        rc = fox_errf(e, FOX_EFAIL, "%s: cannot remove what stands where foxopt keeps a "
                                    "trial's events: %s", dir, strerror(errno));
      else
        fprintf(stderr, "foxopt run: warning: %s: not a directory of foxopt's (a link?): "
                        "removed, what it named untouched\n", dir);
      continue;
    }
    rc = tfevents_prune(dir, recorded(ctx, id, repeat, member), e);
  }
  closedir(d);
  return rc;
}

/* rm -r that never follows a link: a link (tb itself, or one inside it) is unlinked, and what
 * it names stays untouched. */
static int remove_tree_(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode))
    return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
  DIR *d = opendir(path);
  if (!d)
    return -1;
  struct dirent *de;
  int rc = 0;
  while ((de = readdir(d))) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    char sub[4600];
    snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
    rc |= remove_tree_(sub);
  }
  closedir(d);
  return rc | (rmdir(path) == 0 ? 0 : -1);
}

int live_remove(const char *outdir, struct fox_err *e) {
  char path[4200];
  snprintf(path, sizeof path, "%s/metrics.jsonl", outdir);
  if (remove(path) != 0 && errno != ENOENT)
    return fox_errf(e, FOX_EFAIL, "%s: cannot remove the metrics of a dead run: %s", path,
                    strerror(errno));
  snprintf(path, sizeof path, "%s/tb", outdir);
  if (remove_tree_(path) != 0)
    return fox_errf(e, FOX_EFAIL, "%s: cannot remove the events of a dead run", path);
  return 0;
}
