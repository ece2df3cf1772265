/* TensorBoard's event files (src/live/tfevents.c): CRC-32C's published check value, and a run
 * that several processes continue reads in step order. TensorBoard reads a run directory's
 * files in name order; a trial that another process (a rank, a resumed study) began in a file
 * whose name sorts after any this process would begin must get its next epochs appended there,
 * not in a file of its own that TensorBoard reads first (the 2-rank CI run that read trial 5's
 * epochs as 2, 3, 1). Frames are read back here by length and CRC, the events by protobuf-c;
 * e2e_live_metrics reads whole studies with TensorBoard's own reader. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fox_check.h"
#include "live/tfevents.h"
#include "tfevents.pb-c.h"
#include "util/fsutil.h"

static char dir_[256];

static uint64_t rd_(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static uint32_t masked_(const uint8_t *p, size_t n) {
  uint32_t c = tfevents_crc32c(p, n);
  return ((c >> 15) | (c << 17)) + 0xA282EAD8u;
}

static int by_name_(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The steps of every file TensorBoard would read in dir ("tfevents" in the name), in its order
 * (name, then frames); -1 for a file_version record; *files their count. Returns the count. */
static int steps_(long long *out, int cap, int *files) {
  char *names[32];
  int nn = 0, n = 0;
  DIR *d = opendir(dir_);
  struct dirent *de;
  while (d && (de = readdir(d)))
    if (strstr(de->d_name, "tfevents") && nn < 32)
      names[nn++] = strdup(de->d_name);
  if (d)
    closedir(d);
  qsort(names, (size_t)nn, sizeof *names, by_name_);
  *files = nn;
  for (int f = 0; f < nn; f++) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir_, names[f]);
    void *buf = NULL;
    size_t len = 0;
    struct fox_err e = {0};
    CHECK(fs_read_bytes(p, "events", &buf, &len, &e) == 0, "%s", e.msg);
    const uint8_t *b = buf;
    for (size_t at = 0; at + 16 <= len && n < cap;) {
      uint64_t m = rd_(b + at, 8);
      CHECK(rd_(b + at + 8, 4) == masked_(b + at, 8) && m <= len - at - 16 &&
                rd_(b + at + 12 + m, 4) == masked_(b + at + 12, m),
            "%s: a frame at %zu does not check", names[f], at);
      Tb__Event *ev = tb__event__unpack(NULL, m, b + at + 12);
      CHECK(ev != NULL, "%s: an event at %zu does not unpack", names[f], at);
      out[n++] = ev && ev->file_version ? -1 : ev ? ev->step : -2;
      tb__event__free_unpacked(ev, NULL);
      at += 16 + m;
    }
    free(buf);
    free(names[f]);
  }
  return n;
}

static void put_(int64_t step) {
  const char *tags[2] = {"train/loss", "val/sharpe"};
  double v[2] = {0.5 * (double)step, -1.0};
  struct fox_err e = {0};
  CHECK(tfevents_append(dir_, step, 1e9 + (double)step, tags, v, 2, &e) == 0, "step %lld: %s",
        (long long)step, e.msg);
}

static void want_(const char *what, const long long *want, int nw, int files) {
  long long got[64];
  int nf, n = steps_(got, 64, &nf);
  char g[256] = "", *p = g;
  for (int i = 0; i < n; i++)
    p += snprintf(p, (size_t)(g + sizeof g - p), " %lld", got[i]);
  int same = n == nw;
  for (int i = 0; same && i < n; i++)
    same = got[i] == want[i];
  CHECK(same, "%s: read as%s", what, g);
  CHECK(nf == files, "%s: %d files, want %d", what, nf, files);
}

/* Renames dir's only foxopt file to `name`, as if another process had begun it. */
static void rename_only_(const char *name) {
  DIR *d = opendir(dir_);
  struct dirent *de;
  char from[512] = "", to[512];
  while (d && (de = readdir(d)))
    if (strstr(de->d_name, ".foxopt"))
      snprintf(from, sizeof from, "%s/%s", dir_, de->d_name);
  closedir(d);
  snprintf(to, sizeof to, "%s/%s", dir_, name);
  CHECK(from[0] && rename(from, to) == 0, "rename %s", from);
}

/* Removes every entry of dir_. */
static void empty_(void) {
  DIR *d = opendir(dir_);
  struct dirent *de;
  while (d && (de = readdir(d)))
    if (de->d_name[0] != '.') {
      char p[512];
      snprintf(p, sizeof p, "%s/%s", dir_, de->d_name);
      remove(p);
    }
  if (d)
    closedir(d);
}

int main(void) {
  /* CRC-32C("123456789") = 0xE3069283: the check value of the Castagnoli polynomial */
  CHECK(tfevents_crc32c("123456789", 9) == 0xE3069283u, "crc32c %08x",
        tfevents_crc32c("123456789", 9));
  snprintf(dir_, sizeof dir_, "/tmp/fox_tfevents_XXXXXX");
  CHECK(mkdtemp(dir_) != NULL, "mkdtemp");

  put_(1);
  want_("one event", (long long[]){-1, 1}, 2, 1);
  /* another process began the run in a file named after any this one would begin (a later
   * start, a host name sorting last): the next epochs go after its events */
  rename_only_("events.out.tfevents.9999999999.zz-host.1.foxopt");
  put_(2);
  put_(3);
  want_("continued from a later-named file", (long long[]){-1, 1, 2, 3}, 4, 1);

  /* beside it a rewrite a kill left and another writer's file: neither is appended to (a
   * resume removes the first; the second is not foxopt's) */
  char p[512];
  snprintf(p, sizeof p, "%s/events.out.tfevents.9999999999.zz-host.1.foxopt.tmp.7", dir_);
  CHECK(fs_write_own(p, "", 0, &(struct fox_err){0}) == 0, "tmp");
  snprintf(p, sizeof p, "%s/events.out.tfevents.0.user.v2", dir_);
  CHECK(fs_write_own(p, "", 0, &(struct fox_err){0}) == 0, "user's");
  put_(4);
  want_("beside a tmp and a user's file", (long long[]){-1, 1, 2, 3, 4}, 5, 3);

  /* a resume prunes the epochs it trains again, removes the tmp, leaves the user's file alone,
   * and appends after what stays */
  struct fox_err e = {0};
  CHECK(tfevents_prune(dir_, 2, &e) == 0, "prune: %s", e.msg);
  put_(3);
  want_("pruned to 2 and continued", (long long[]){-1, 1, 2, 3}, 4, 2);
  remove(p);

  /* pruned to its header, the file still takes the next events */
  CHECK(tfevents_prune(dir_, 0, &e) == 0, "prune: %s", e.msg);
  want_("pruned to 0", (long long[]){-1}, 1, 1);
  put_(1);
  want_("appended after a header-only file", (long long[]){-1, 1}, 2, 1);

  /* a kill's torn tail, 12 to 15 bytes into a frame (its length and length CRC whole): the
   * prune cuts it without reading past the file (ASan's build watches) */
  put_(2);
  char only[512] = "";
  DIR *d = opendir(dir_);
  struct dirent *de;
  while (d && (de = readdir(d)))
    if (strstr(de->d_name, ".foxopt"))
      snprintf(only, sizeof only, "%s/%s", dir_, de->d_name);
  closedir(d);
  void *whole = NULL;
  size_t n = 0;
  CHECK(fs_read_bytes(only, "events", &whole, &n, &e) == 0, "%s", e.msg);
  for (size_t cut = 12; whole && cut <= 15; cut++) {
    uint8_t *torn = malloc(n + cut);
    memcpy(torn, whole, n);
    memcpy(torn + n, whole, cut); /* the start of a copy of its first frame */
    CHECK(fs_write_own(only, torn, n + cut, &e) == 0, "%s", e.msg);
    free(torn);
    CHECK(tfevents_prune(dir_, 5, &e) == 0, "prune: %s", e.msg);
    want_("a torn tail cut", (long long[]){-1, 1, 2}, 3, 1);
  }
  free(whole);

  /* a study begun before one file per run: a run's events in two files that TensorBoard reads
   * as 2, then 1 2 (a kill having parted an earlier gathering repeats step 2). The resume's
   * prune gathers them into the first, in step order, each step once, and appends go on there */
  CHECK(fs_read_bytes(only, "events", &whole, &n, &e) == 0, "%s", e.msg);
  const uint8_t *b = whole;
  size_t f1 = 16 + rd_(b, 8), f2 = f1 + 16 + rd_(b + f1, 8); /* ends of the header, step 1 */
  CHECK(whole && f2 < n && f2 + 16 + rd_(b + f2, 8) == n, "hdr 1 2: %zu %zu %zu", f1, f2, n);
  remove(only);
  uint8_t *x = malloc(n);
  memcpy(x, b, f1);
  memcpy(x + f1, b + f2, n - f2);
  char a_[512], b_[512];
  snprintf(a_, sizeof a_, "%s/events.out.tfevents.1000000000.a.1.foxopt", dir_);
  snprintf(b_, sizeof b_, "%s/events.out.tfevents.1000000001.b.2.foxopt", dir_);
  CHECK(fs_write_own(a_, x, f1 + n - f2, &e) == 0 && fs_write_own(b_, b, n, &e) == 0, "%s",
        e.msg);
  free(x);
  free(whole);
  want_("an old study's two files", (long long[]){-1, 2, -1, 1, 2}, 5, 2);
  CHECK(tfevents_prune(dir_, 5, &e) == 0, "prune: %s", e.msg);
  want_("gathered", (long long[]){-1, 1, 2}, 3, 1);
  CHECK(fs_exists(a_) && !fs_exists(b_), "gathered into the first by name");
  put_(3);
  want_("gathered, then appended", (long long[]){-1, 1, 2, 3}, 4, 1);
  struct stat s0, s1;
  CHECK(stat(a_, &s0) == 0 && tfevents_prune(dir_, 3, &e) == 0 && stat(a_, &s1) == 0,
        "a prune that keeps all: %s", e.msg);
  CHECK(s0.st_ino == s1.st_ino, "a run in one file that loses nothing is not rewritten");
  want_("kept as it was", (long long[]){-1, 1, 2, 3}, 4, 1);

  /* two foxopt files (a gathering a kill parted): the next event goes after both, to the
   * last by name, and the first is left as it is */
  snprintf(b_, sizeof b_, "%s/events.out.tfevents.1000000001.b.2.foxopt", dir_);
  CHECK(fs_read_bytes(a_, "events", &whole, &n, &e) == 0 && fs_write_own(b_, whole, n, &e) == 0,
        "%s", e.msg);
  free(whole);
  put_(4);
  CHECK(stat(a_, &s1) == 0 && s1.st_size == s0.st_size, "the first file grew");
  want_("appended to the last", (long long[]){-1, 1, 2, 3, -1, 1, 2, 3, 4}, 9, 2);
  empty_();

  /* a file a kill or a failed write left empty gets the header before its first event; a prune
   * takes an empty file away */
  CHECK(fs_write_own(a_, "", 0, &e) == 0, "%s", e.msg);
  put_(1);
  want_("an empty file, appended to", (long long[]){-1, 1}, 2, 1);
  CHECK(fs_write_own(a_, "", 0, &e) == 0 && tfevents_prune(dir_, 5, &e) == 0 && !fs_exists(a_),
        "an empty file pruned: %s", e.msg);

  /* nothing of foxopt's to prune (a user's file, a killed rewrite) and a file torn in its first
   * frame: no sort of an empty list (undefined with a NULL array: UBSan's abort in the asan
   * preset), the torn file goes */
  CHECK(fs_write_own(p, "x", 1, &e) == 0 && fs_write_own(b_, "", 0, &e) == 0, "%s", e.msg);
  char tmp[600];
  snprintf(tmp, sizeof tmp, "%s.tmp.9", b_);
  CHECK(rename(b_, tmp) == 0 && tfevents_prune(dir_, 5, &e) == 0 && !fs_exists(tmp) &&
            fs_exists(p), "a directory without foxopt's files: %s", e.msg);
  CHECK(fs_write_own(a_, "0123456789abcdefghij", 20, &e) == 0 &&
            tfevents_prune(dir_, 5, &e) == 0 && !fs_exists(a_),
        "a file torn in its first frame: %s", e.msg);
  remove(p);
  /* a run directory that cannot be read is an error naming it, not "no events yet" */
  e = (struct fox_err){0};
  CHECK(fs_write_own(a_, "", 0, &e) == 0 && tfevents_prune(a_, 5, &e) != 0 && strstr(e.msg, a_),
        "a file where the run directory goes: '%s'", e.msg);
  empty_();
  rmdir(dir_);
  return fox_check_done("test_tfevents");
}
