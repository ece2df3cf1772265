/* TensorBoard's event files by protobuf-c and a table CRC-32C (no C library of it is
 * packaged in Debian; the polynomial and the mask are TFRecord's). */
#include "live/tfevents.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tfevents.pb-c.h"
#include "util/fsutil.h"

uint32_t tfevents_crc32c(const void *data, size_t n) {
  static uint32_t table[256];
  static int ready;
  if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = c & 1 ? 0x82F63B78u ^ (c >> 1) : c >> 1; /* Castagnoli, reflected */
      table[i] = c;
    }
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
  }
  uint32_t c = 0xFFFFFFFFu;
  for (const uint8_t *p = data; n--; p++)
    c = table[(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static uint32_t masked_(const void *data, size_t n) {
  uint32_t c = tfevents_crc32c(data, n);
  return ((c >> 15) | (c << 17)) + 0xA282EAD8u;
}

static void le_(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* One TFRecord frame of the packed event at *at of buf; returns the new end. */
static size_t frame_(uint8_t *buf, size_t at, const Tb__Event *ev) {
  size_t len = tb__event__get_packed_size(ev);
  le_(buf + at, len, 8);
  le_(buf + at + 8, masked_(buf + at, 8), 4);
  tb__event__pack(ev, buf + at + 12);
  le_(buf + at + 12 + len, masked_(buf + at + 12, len), 4);
  return at + 16 + len;
}

static int is_ours_(const char *name) {
  size_t n = strlen(name);
  return strncmp(name, "events.out.tfevents.", 20) == 0 && n > 27 &&
         strcmp(name + n - 7, ".foxopt") == 0;
}

/* The file of dir the next event goes to: its last events file of foxopt's by name, else a new
 * one named for now, this host and pid. TensorBoard reads a run's files in name
 * order, each to its end before the next, so a run that several processes continue (a trial
 * promoted to another rank, a pbt member moving, a resumed study) must append where its last
 * event went: a second file named by another process's start or host can sort first, and
 * TensorBoard then read trial 5's epochs as 2, 3, 1. One writer at a time per run: a trial's
 * next segment starts after its last one ended. */
static int events_file_(const char *dir, char *name, size_t n, struct fox_err *e) {
  name[0] = '\0';
  DIR *d = opendir(dir);
  if (!d)
    return fox_errf(e, FOX_EFAIL, "%s: cannot read TensorBoard's run directory: %s", dir,
                    strerror(errno));
  struct dirent *de;
  while ((de = readdir(d)))
    if (is_ours_(de->d_name) && strcmp(de->d_name, name) > 0 && strlen(de->d_name) < n)
      snprintf(name, n, "%s", de->d_name);
  closedir(d);
  if (name[0] == '\0') {
    char host[128] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    snprintf(name, n, "events.out.tfevents.%lld.%s.%ld.foxopt", (long long)time(NULL), host,
             (long)getpid());
  }
  return 0;
}

int tfevents_ready(struct fox_err *e) {
  (void)e;
  return 0;
}

int tfevents_append(const char *dir, int64_t step, double wall_time, const char *const *tags,
                    const double *values, int n, struct fox_err *e) {
  FOX_TRY(fs_mkdirs(dir, e));
  char name[256], path[4400];
  FOX_TRY(events_file_(dir, name, sizeof name, e));
  snprintf(path, sizeof path, "%s/%s", dir, name);
  Tb__SummaryValue *vals = calloc((size_t)n, sizeof *vals), **vp = calloc((size_t)n, sizeof *vp);
  if (!vals || !vp) {
    free(vals), free(vp);
    return fox_errf(e, FOX_EFAIL, "out of memory for TensorBoard's events");
  }
  for (int i = 0; i < n; i++) {
    vals[i] = (Tb__SummaryValue)TB__SUMMARY_VALUE__INIT;
    vals[i].tag = (char *)tags[i];
    vals[i].has_simple_value = 1;
    vals[i].simple_value = (float)values[i];
    vp[i] = &vals[i];
  }
  Tb__Summary sum = TB__SUMMARY__INIT;
  sum.n_value = (size_t)n;
  sum.value = vp;
  Tb__Event ev = TB__EVENT__INIT, head = TB__EVENT__INIT;
  ev.has_wall_time = head.has_wall_time = 1;
  ev.wall_time = head.wall_time = wall_time;
  ev.has_step = 1;
  ev.step = step;
  ev.summary = &sum;
  head.file_version = "brain.Event:2";
  size_t cap = 32 + tb__event__get_packed_size(&ev) + tb__event__get_packed_size(&head);
  uint8_t *buf = malloc(cap);
  int rc = buf ? 0 : fox_errf(e, FOX_EFAIL, "out of memory for TensorBoard's events");
  size_t at = 0, len = 0;
  if (rc == 0)
    len = frame_(buf, at = frame_(buf, 0, &head), &ev);
  free(vals), free(vp);
  /* One write of whole frames: a reader never meets half an event it cannot skip. The header
   * goes first into an empty file, whether new or left empty by a failed write or a kill. */
  int fd = rc == 0 ? fs_append_open(path, "TensorBoard's events", e) : -1;
  struct stat st;
  if (rc == 0 && fd < 0)
    rc = e->code;
  else if (rc == 0 && fstat(fd, &st) != 0)
    rc = fox_errf(e, FOX_EFAIL, "%s: cannot stat TensorBoard's events: %s", path,
                  strerror(errno));
  if (rc == 0 && st.st_size == 0)
    at = 0;
  if (rc == 0 && write(fd, buf + at, len - at) != (ssize_t)(len - at))
    rc = fox_errf(e, FOX_EFAIL, "%s: cannot append TensorBoard's events: %s", path,
                  strerror(errno));
  if (fd >= 0 && close(fd) != 0 && rc == 0)
    rc = fox_errf(e, FOX_EFAIL, "%s: cannot append TensorBoard's events: %s", path,
                  strerror(errno));
  free(buf);
  return rc;
}

static uint64_t rd_le_(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* A frame of a run's files: its bytes, its step (INT64_MIN: the file_version record), and
 * where it was (file, then offset) for a stable order. */
struct frame_ {
  const uint8_t *p;
  size_t size, at;
  int64_t step;
  int file;
};

/* Appends the checked frames of one file's bytes with a step <= keep to *fr (a torn or damaged
 * tail ends them); returns the bytes they hold, or -1 out of memory. */
static long frames_(const uint8_t *in, size_t n, int64_t keep, int file, struct frame_ **fr,
                    size_t *nf, size_t *cap) {
  size_t at = 0;
  long put = 0;
  while (at + 16 <= n) { /* a frame is 16 bytes and its event: a shorter tail is torn */
    uint64_t len = rd_le_(in + at, 8);
    if (rd_le_(in + at + 8, 4) != masked_(in + at, 8) || len > n - at - 16 ||
        rd_le_(in + at + 12 + len, 4) != masked_(in + at + 12, len))
      break; /* a torn or damaged tail */
    Tb__Event *ev = tb__event__unpack(NULL, len, in + at + 12);
    int64_t step = !ev ? 0 : ev->file_version ? INT64_MIN : ev->has_step ? ev->step : -1;
    int keep_it = ev && step <= keep;
    tb__event__free_unpacked(ev, NULL);
    if (keep_it) {
      if (*nf == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        struct frame_ *m = realloc(*fr, c * sizeof *m);
        if (!m)
          return -1;
        *fr = m, *cap = c;
      }
      (*fr)[(*nf)++] = (struct frame_){in + at, 16 + len, at, step, file};
      put += (long)(16 + len);
    }
    at += 16 + len;
  }
  return put;
}

static int by_step_(const void *a, const void *b) {
  const struct frame_ *x = a, *y = b;
  if (x->step != y->step)
    return x->step < y->step ? -1 : 1;
  if (x->file != y->file)
    return x->file < y->file ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

static int by_name_(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names_(char **names, int n) {
  for (int i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

/* The names of foxopt's event files in dir, sorted (*n of them; none when dir is not there yet);
 * a rewrite a kill left is removed on the way. */
static int our_files_(const char *dir, char ***out, int *n, struct fox_err *e) {
  *out = NULL, *n = 0;
  DIR *d = opendir(dir);
  if (!d && errno == ENOENT)
    return 0; /* no events yet */
  if (!d) /* not skipped: its events above the kept epoch would stay */
    return fox_errf(e, FOX_EFAIL, "%s: cannot read TensorBoard's run directory: %s", dir,
                    strerror(errno));
  char **names = NULL;
  int cap = 0, oom = 0;
  struct dirent *de;
  while (!oom && (de = readdir(d))) {
    if (strncmp(de->d_name, "events.out.tfevents.", 20) == 0 &&
        strstr(de->d_name, ".foxopt.tmp.")) { /* a rewrite a kill left: TensorBoard reads it */
      char path[4400];
      snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
      remove(path);
      continue;
    }
    if (!is_ours_(de->d_name))
      continue; /* not foxopt's: another writer's events are theirs to keep */
    if (*n == cap) {
      char **m = realloc(names, (size_t)(cap = cap ? 2 * cap : 4) * sizeof *m);
      oom = !m;
      names = m ? m : names;
    }
    if (!oom && !(names[*n] = strdup(de->d_name)))
      oom = 1;
    *n += !oom;
  }
  closedir(d);
  if (oom) {
    free_names_(names, *n);
    *n = 0;
    return fox_errf(e, FOX_EFAIL, "out of memory listing %s", dir);
  }
  if (*n > 1) /* qsort's array may not be NULL, even empty */
    qsort(names, (size_t)*n, sizeof *names, by_name_);
  *out = names;
  return 0;
}

/* Prunes a run's files, and gathers them into its first: a study begun before one file per run
 * could leave a trial's events in several, which TensorBoard reads out of step order (the
 * events of one step twice, when a kill parted an earlier gathering, are kept once). */
int tfevents_prune(const char *dir, int64_t keep, struct fox_err *e) {
  int n;
  char **names;
  FOX_TRY(our_files_(dir, &names, &n, e));
  if (n == 0)
    return 0;
  void **bufs = calloc((size_t)n, sizeof *bufs);
  struct frame_ *fr = NULL;
  size_t nf = 0, cap = 0;
  int rc = bufs ? 0 : fox_errf(e, FOX_EFAIL, "out of memory pruning %s", dir), same = n == 1;
  for (int f = 0; rc == 0 && f < n; f++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    size_t len;
    if ((rc = fs_read_bytes(path, "TensorBoard events", &bufs[f], &len, e)) != 0)
      break;
    long put = frames_(bufs[f], len, keep, f, &fr, &nf, &cap);
    if (put < 0)
      rc = fox_errf(e, FOX_EFAIL, "out of memory pruning %s", path);
    same = same && (size_t)put == len && len > 0; /* an empty file goes */
  }
  uint8_t *out = NULL;
  size_t size = 0;
  if (rc == 0 && !same) {
    if (nf > 1)
      qsort(fr, nf, sizeof *fr, by_step_);
    for (size_t i = 0; i < nf; i++)
      size += fr[i].size;
    out = malloc(size ? size : 1);
    if (!out)
      rc = fox_errf(e, FOX_EFAIL, "out of memory pruning %s", dir);
    size = 0;
    for (size_t i = 0; out && i < nf; i++)
      if (i == 0 || fr[i].step != fr[i - 1].step || fr[i].step == -1) { /* one header */
        memcpy(out + size, fr[i].p, fr[i].size);
        size += fr[i].size;
      }
  }
  for (int f = 0; rc == 0 && !same && f < n; f++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    if (f == 0 && size > 0)
      rc = fs_write_own(path, out, size, e);
    else if (remove(path) != 0 && errno != ENOENT)
      rc = fox_errf(e, FOX_EFAIL, "%s: cannot remove: %s", path, strerror(errno));
  }
  for (int f = 0; bufs && f < n; f++)
    free(bufs[f]);
  free_names_(names, n);
  free(bufs), free(fr), free(out);
  return rc;
}
