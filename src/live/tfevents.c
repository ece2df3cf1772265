/* TensorBoard's event files by protobuf-c and a table CRC-32C (no C library of it is
 * packaged in Debian; the polynomial and the mask are TFRecord's). */
#include "live/tfevents.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
 * one named for now, this host and pid (*fresh set). TensorBoard reads a run's files in name
 * order, each to its end before the next, so a run that several processes continue (a trial
 * promoted to another rank, a pbt member moving, a resumed study) must append where its last
 * event went: a second file named by another process's start or host can sort first, and
 * TensorBoard then read trial 5's epochs as 2, 3, 1. One writer at a time per run: a trial's
 * next segment starts after its last one ended. */
static int events_file_(const char *dir, char *name, size_t n, int *fresh, struct fox_err *e) {
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
  *fresh = name[0] == '\0';
  if (*fresh) {
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
  int fresh = 0;
  FOX_TRY(events_file_(dir, name, sizeof name, &fresh, e));
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
  size_t cap = 32 + tb__event__get_packed_size(&ev) + (fresh ? 16 + tb__event__get_packed_size(&head) : 0);
  uint8_t *buf = malloc(cap);
  int rc = buf ? 0 : fox_errf(e, FOX_EFAIL, "out of memory for TensorBoard's events");
  size_t len = 0;
  if (rc == 0 && fresh)
    len = frame_(buf, len, &head);
  if (rc == 0)
    len = frame_(buf, len, &ev);
  free(vals), free(vp);
  /* One write of whole frames: a reader never meets half an event it cannot skip. */
  int fd = rc == 0 ? fs_append_open(path, "TensorBoard's events", e) : -1;
  if (rc == 0 && fd < 0)
    rc = e->code;
  else if (rc == 0 && write(fd, buf, len) != (ssize_t)len)
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

/* The frames of one file with a step <= keep, moved to the front of out (which may be in);
 * their bytes. */
static size_t prune_buf_(const uint8_t *in, size_t n, int64_t keep, uint8_t *out) {
  size_t at = 0, put = 0;
  while (at + 16 <= n) { /* a frame is 16 bytes and its event: a shorter tail is torn */
    uint64_t len = rd_le_(in + at, 8);
    if (rd_le_(in + at + 8, 4) != masked_(in + at, 8) || len > n - at - 16 ||
        rd_le_(in + at + 12 + len, 4) != masked_(in + at + 12, len))
      break; /* a torn or damaged tail */
    Tb__Event *ev = tb__event__unpack(NULL, len, in + at + 12);
    int keep_it = ev && (!ev->has_step || ev->step <= keep);
    tb__event__free_unpacked(ev, NULL);
    if (keep_it) {
      memmove(out + put, in + at, 16 + len);
      put += 16 + len;
    }
    at += 16 + len;
  }
  return put;
}

int tfevents_prune(const char *dir, int64_t keep, struct fox_err *e) {
  DIR *d = opendir(dir);
  if (!d)
    return 0; /* no events yet */
  int rc = 0;
  struct dirent *de;
  while (rc == 0 && (de = readdir(d))) {
    int tmp = strncmp(de->d_name, "events.out.tfevents.", 20) == 0 &&
              strstr(de->d_name, ".foxopt.tmp.");
    if (!tmp && !is_ours_(de->d_name))
      continue; /* not foxopt's: another writer's events are theirs to keep */
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (tmp) { /* a rewrite a kill left: TensorBoard would read it too */
      remove(path);
      continue;
    }
    void *buf;
    size_t len;
    if ((rc = fs_read_bytes(path, "TensorBoard events", &buf, &len, e)) != 0)
      break;
    size_t put = prune_buf_(buf, len, keep, buf);
    if (put == 0)
      remove(path);
    else if (put != len)
      rc = fs_write_own(path, buf, put, e);
    free(buf);
  }
  closedir(d);
  return rc;
}
