/* Atomic output files and where they may go: every writer goes through fs_out_begin +
 * fs_out_end (a temporary sibling renamed over the target), which follows symbolic links,
 * writes devices and FIFOs directly; fs_out_guard refuses a user's output path that would replace
 * what the command reads. */
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/temps.h"

void fs_temp_name(const char *path, char *out, size_t n) {
  snprintf(out, n, "%s.tmp.%ld", path, (long)getpid());
  temps_add(out); /* until fs_commit or fs_out_end: a signal takes it away */
}

int fs_commit(const char *tmp, const char *path, struct fox_err *e) {
  int moved = rename(tmp, path), err = errno;
  if (moved != 0)
    remove(tmp);
  temps_drop(tmp);
  if (moved != 0) {
    /* The user's name only: the temporary is gone and means nothing to them. */
    return fox_errf(e, FOX_EFAIL, "%s: cannot be written: %s", path, strerror(err));
  }
  return 0;
}

int fs_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

int fs_mkdirs(const char *dir, struct fox_err *e) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", dir);
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char save = *p;
      *p = '\0';
      struct stat st;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return fox_errf(e, FOX_EFAIL, "%s: cannot create directory: %s", buf, strerror(errno));
      /* a file in the way is said now, not when the first file goes in (after the work) */
      if (stat(buf, &st) != 0) /* a link to nothing */
        return fox_errf(e, FOX_EFAIL, "%s: cannot create directory: %s", buf, strerror(errno));
      if (!S_ISDIR(st.st_mode))
        return fox_errf(e, FOX_EUSAGE, "%s: not a directory%s%s", buf,
                        save ? ", on the way to " : "", save ? dir : "");
      *p = save;
      if (!save)
        return 0;
    }
  }
}

static int write_bytes_(const char *path, int kind, const void *buf, size_t len,
                        struct fox_err *e) {
  struct fs_out o;
  FILE *f = fs_out_fopen(&o, path, kind, e);
  if (!f)
    return fs_out_end(&o, e->code ? e->code : FOX_EFAIL, e);
  int rc = fwrite(buf, 1, len, f) != len
               ? fox_errf(e, FOX_EFAIL, "%s: writing it failed: %s", path, strerror(errno))
               : 0;
  return fs_out_fclose(&o, f, rc, e);
}

int fs_write_bytes(const char *path, const void *buf, size_t len, struct fox_err *e) {
  return write_bytes_(path, FS_OUT_TEXT, buf, len, e);
}

int fs_write_file(const char *path, const void *buf, size_t len, struct fox_err *e) {
  return write_bytes_(path, FS_OUT_FILE, buf, len, e);
}

int fs_write_own(const char *path, const void *buf, size_t len, struct fox_err *e) {
  return write_bytes_(path, FS_OUT_FILE | FS_OUT_OWN, buf, len, e);
}

int fs_read_bytes(const char *path, const char *what, void **buf, size_t *len,
                  struct fox_err *e) {
  FOX_TRY(fs_input_check(path, what, FOX_EDATA, e));
  FILE *f = fopen(path, "rb");
  if (!f)
    return fox_errf(e, FOX_EDATA, "%s: cannot open %s: %s", path, what, strerror(errno));
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  *buf = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc(n > 0 ? (size_t)n : 1) : NULL;
  int ok = *buf && fread(*buf, 1, (size_t)n, f) == (size_t)n;
  fclose(f);
  if (!ok) {
    free(*buf);
    *buf = NULL;
    return fox_errf(e, FOX_EDATA, "%s: cannot read %s", path, what);
  }
  *len = (size_t)n;
  return 0;
}

/* ---- inputs: regular files only, and remembered while a command guards them ---- */

struct guard_file_ {
  dev_t dev;
  ino_t ino;
  char path[256]; /* the user's name, for the message */
};

static struct {
  pthread_mutex_t lock;
  int on;
  struct guard_file_ *files;
  int n, cap;
  char studies[4][PATH_MAX]; /* real paths of the study directories the command reads */
  char given[4][256];        /* as the user wrote them */
  int nstudies;
} guard_ = {.lock = PTHREAD_MUTEX_INITIALIZER};

void fs_guard_inputs(void) { guard_.on = 1; }

static void guard_note_(const char *path, const struct stat *st) {
  pthread_mutex_lock(&guard_.lock);
  int known = 0;
  for (int i = 0; i < guard_.n && !known; i++)
    known = guard_.files[i].dev == st->st_dev && guard_.files[i].ino == st->st_ino;
  if (!known && guard_.n == guard_.cap) {
    int cap = guard_.cap ? 2 * guard_.cap : 16;
    struct guard_file_ *f = realloc(guard_.files, (size_t)cap * sizeof *f);
    if (f) {
      guard_.files = f;
      guard_.cap = cap;
    }
  }
  if (!known && guard_.n < guard_.cap) {
    struct guard_file_ *g = &guard_.files[guard_.n++];
    g->dev = st->st_dev;
    g->ino = st->st_ino;
    snprintf(g->path, sizeof g->path, "%s", path);
  }
  pthread_mutex_unlock(&guard_.lock);
}

int fs_input_check(const char *path, const char *what, int code, struct fox_err *e) {
  struct stat st;
  if (stat(path, &st) != 0)
    return 0; /* the caller's open names the reason */
  if (S_ISDIR(st.st_mode))
    return fox_errf(e, code, "%s: is a directory (expected %s)", path, what);
  if (!S_ISREG(st.st_mode))
    return fox_errf(e, code, "%s: not a regular file (a FIFO, device or socket; expected %s)", path,
                    what);
  if (guard_.on)
    guard_note_(path, &st);
  return 0;
}

void fs_guard_study(const char *dir) {
  char real[PATH_MAX];
  if (!realpath(dir, real))
    return; /* reading it fails anyway, with its own message */
  pthread_mutex_lock(&guard_.lock);
  if (guard_.nstudies < 4) {
    snprintf(guard_.given[guard_.nstudies], sizeof guard_.given[0], "%s", dir);
    snprintf(guard_.studies[guard_.nstudies++], PATH_MAX, "%s", real);
  }
  pthread_mutex_unlock(&guard_.lock);
}

/* ---- outputs ---- */

/* The file a path names once every symbolic link is followed: realpath's for a file that exists;
 * for one that does not (a new output, or a dangling link) where it would be created. */
static int resolve_(const char *path, char *out, size_t n, struct fox_err *e) {
  char cur[PATH_MAX], link[PATH_MAX];
  if (realpath(path, cur)) {
    if (strlen(cur) >= n)
      return fox_errf(e, FOX_EUSAGE, "%s: path too long", path);
    memcpy(out, cur, strlen(cur) + 1);
    return 0;
  }
  if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", path);
  for (int hops = 0;; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
      break;
    if (hops == 40)
      return fox_errf(e, FOX_EUSAGE, "%s: too many levels of symbolic links", path);
    ssize_t k = readlink(cur, link, sizeof link - 1);
    if (k < 0)
      return fox_errf(e, FOX_EFAIL, "%s: cannot read the link: %s", path, strerror(errno));
    link[k] = '\0';
    char *slash = strrchr(cur, '/');
    if (link[0] == '/' || !slash) {
      snprintf(cur, sizeof cur, "%s", link);
    } else {
      slash[1] = '\0';
      size_t used = strlen(cur);
      if (used + (size_t)k >= sizeof cur)
        return fox_errf(e, FOX_EUSAGE, "%s: path too long", path);
      memcpy(cur + used, link, (size_t)k + 1);
    }
  }
  if (strlen(cur) >= n)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", path);
  memcpy(out, cur, strlen(cur) + 1);
  return 0;
}

/* The names foxopt run gives a study directory's own files (docs/files.md). */
static int study_name_(const char *base) {
  static const char *const names[] = {"study.h5", "trials.csv", "test.h5", ".lock", "state",
                                      "trials",   "metrics.jsonl", "tb"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(base, names[i]) == 0)
      return 1;
  unsigned rank;
  char end[4];
  return sscanf(base, "rank-%u.h%1[5]%c", &rank, end, end + 1) == 2 ||
         sscanf(base, "dataset-%u.h%1[5]%c", &rank, end, end + 1) == 2;
}

/* Whether dst would replace a file of a study the command reads: a name of the study's own in
 * its directory, or anything below it (trials/ID.h5, state/...). */
static const char *in_study_(const char *dst) {
  char dir[PATH_MAX], real[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", dst);
  char *slash = strrchr(dir, '/');
  const char *base = slash ? dst + (slash - dir) + 1 : dst;
  if (slash == dir)
    slash[1] = '\0'; /* "/NAME": the root */
  else if (slash)
    *slash = '\0';
  if (!realpath(slash ? dir : ".", real))
    return NULL;
  for (int i = 0; i < guard_.nstudies; i++) {
    const char *s = guard_.studies[i];
    size_t k = strlen(s);
    if ((strcmp(real, s) == 0 && study_name_(base)) || (strncmp(real, s, k) == 0 && real[k] == '/'))
      return guard_.given[i];
  }
  return NULL;
}

int fs_out_guard(const char *path, struct fox_err *e) {
  char dst[PATH_MAX];
  struct stat st;
  int exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
    return 0; /* a device or FIFO: written, never replaced */
  if (fs_out_is_stream(path)) {
    /* /dev/stdout sent to a file: that file is written, so it must not be one of the inputs */
    if (!realpath(path, dst))
      return 0;
  } else {
    FOX_TRY(resolve_(path, dst, sizeof dst, e));
  }
  pthread_mutex_lock(&guard_.lock);
  const char *input = NULL, *study = in_study_(dst);
  for (int i = 0; exists && !study && !input && i < guard_.n; i++)
    if (guard_.files[i].dev == st.st_dev && guard_.files[i].ino == st.st_ino)
      input = guard_.files[i].path;
  int rc = input && strcmp(input, path) == 0
               ? fox_errf(e, FOX_EUSAGE, "%s: is an input of this command: write the output "
                                         "elsewhere", path)
           : input ? fox_errf(e, FOX_EUSAGE, "%s: is %s, an input of this command: write the "
                                             "output elsewhere", path, input)
           : study ? fox_errf(e, FOX_EUSAGE, "%s: would replace a file of the study this command "
                                             "reads (%s): write the output elsewhere", path, study)
                   : 0;
  pthread_mutex_unlock(&guard_.lock);
  return rc;
}

/* Whether dir (a real path) is a process's descriptor table: /proc/PID/fd or
 * /proc/PID/task/TID/fd. */
static int fd_dir_(const char *dir) {
  const char *p = dir;
  if (strncmp(p, "/proc/", 6) != 0)
    return 0;
  p += 6;
  const char *q = p;
  while (*q >= '0' && *q <= '9')
    q++;
  if (q == p)
    return 0;
  if (strcmp(q, "/fd") == 0)
    return 1;
  if (strncmp(q, "/task/", 6) != 0)
    return 0;
  p = q += 6;
  while (*q >= '0' && *q <= '9')
    q++;
  return q > p && strcmp(q, "/fd") == 0;
}

/* Whether path names a descriptor of a process (/dev/stdout, /dev/fd/N, /proc/self/fd/N, and
 * any spelling or link that leads to one: //dev/stdout, a link to /dev/stdout), which a shell
 * may have opened on a regular file: each link is followed one step at a time, and the
 * directory it stands in resolved, until a descriptor table or something that is no link. */
static int fd_alias_(const char *path) {
  char cur[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], link[PATH_MAX];
  if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
    return 0;
  for (int hop = 0; hop < 40; hop++) {
    size_t n = strlen(cur);
    while (n > 1 && cur[n - 1] == '/')
      cur[--n] = '\0';
    char *slash = strrchr(cur, '/');
    const char *base = slash ? slash + 1 : cur;
    if (!slash)
      snprintf(dir, sizeof dir, ".");
    else if (slash == cur)
      snprintf(dir, sizeof dir, "/");
    else
      snprintf(dir, sizeof dir, "%.*s", (int)(slash - cur), cur);
    if (!*base || !realpath(dir, real))
      return 0;
    int digits = 1;
    for (const char *c = base; *c; c++)
      digits &= *c >= '0' && *c <= '9';
    if (digits && fd_dir_(real))
      return 1;
    struct stat st;
    char at[PATH_MAX * 2];
    snprintf(at, sizeof at, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
    if (lstat(at, &st) != 0 || !S_ISLNK(st.st_mode))
      return 0;
    ssize_t k = readlink(at, link, sizeof link - 1);
    if (k <= 0)
      return 0;
    link[k] = '\0';
    if (link[0] == '/')
      snprintf(cur, sizeof cur, "%s", link);
    else if (snprintf(cur, sizeof cur, "%s/%s", strcmp(real, "/") == 0 ? "" : real, link) >=
             (int)sizeof cur)
      return 0;
  }
  return 0;
}

int fs_out_is_stream(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) /* ELOOP: a chain of links to /dev/stdout past the kernel's 40 */
    return errno == ELOOP && fd_alias_(path);
  if (!S_ISREG(st.st_mode))
    return !S_ISDIR(st.st_mode);
  /* A descriptor the shell opened on a file (> out.txt, >> log) is written where it stands:
   * a rename would leave what the shell holds on an unlinked file. */
  return fd_alias_(path);
}

FILE *fs_note_stream(const char *out) {
  struct stat a, b;
  if (!out || !fs_out_is_stream(out))
    return stdout;
  /* where the output is stdout itself, a note on stdout would land inside it */
  if (stat(out, &a) != 0 || fstat(STDOUT_FILENO, &b) != 0)
    return stderr;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino ? stderr : stdout;
}

int fs_own_dir_check(const char *path, struct fox_err *e) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return 0;
  if (S_ISLNK(st.st_mode))
    return fox_errf(e, FOX_EDATA, "%s: a symbolic link where foxopt keeps a directory of its "
                                  "own (it would write and remove files through it): remove it",
                    path);
  if (!S_ISDIR(st.st_mode))
    return fox_errf(e, FOX_EDATA, "%s: not a directory where foxopt keeps a directory of its "
                                  "own: remove it", path);
  return 0;
}

int fs_is_regular(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int fs_append_open(const char *path, const char *what, struct fox_err *e) {
  /* O_NONBLOCK: a FIFO without a reader fails at once instead of blocking the run */
  /* O_NOFOLLOW: a link planted there never has a run append to what it points at */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
  struct stat st;
  if (fd < 0) {
    int err = errno, odd = err == ENXIO || err == ELOOP || err == EOPNOTSUPP;
    fox_errf(e, odd ? FOX_EDATA : FOX_EFAIL, "%s: cannot append %s: %s", path, what,
             odd ? "not a regular file (a link, FIFO or socket): remove it" : strerror(err));
    return -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    fox_errf(e, FOX_EDATA, "%s: not a regular file (a FIFO, device or socket) where foxopt "
                           "appends %s: remove it", path, what);
    return -1;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    fox_errf(e, FOX_EFAIL, "%s: cannot append %s: %s", path, what, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

int fs_out_begin(struct fs_out *o, const char *path, int kind, struct fox_err *e) {
  memset(o, 0, sizeof *o);
  if (!path[0])
    return fox_errf(e, FOX_EUSAGE, "an empty path was given for an output");
  if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", path);
  struct stat st;
  if ((kind & FS_OUT_OWN) && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
    return fox_errf(e, FOX_EDATA, "%s: a symbolic link where foxopt keeps a file of its own "
                                  "(it would write through it): remove it", path);
  int exists = stat(path, &st) == 0; /* links followed */
  if (exists && S_ISDIR(st.st_mode))
    return fox_errf(e, FOX_EUSAGE, "%s: is a directory (expected a file to write)", path);
  if (fs_out_is_stream(path)) {
    if (kind & FS_OUT_OWN)
      return fox_errf(e, FOX_EDATA, "%s: not a regular file (a FIFO, device or socket) where "
                                    "foxopt keeps a file of its own: remove it", path);
    if ((kind & ~FS_OUT_OWN) == FS_OUT_HDF5)
      return fox_errf(e, FOX_EUSAGE,
                      "%s: not a regular file (a FIFO, device or socket): this output is written "
                      "whole and renamed into place, which needs one",
                      path);
    o->direct = 1; /* a device or FIFO is written as it is: renaming over it would replace it */
    snprintf(o->tmp, sizeof o->tmp, "%s", path); /* /dev/stdout names no file realpath finds */
    return 0;
  }
  FOX_TRY(resolve_(path, o->dst, sizeof o->dst, e));
  fs_temp_name(o->dst, o->tmp, sizeof o->tmp);
  return 0;
}

int fs_out_end(struct fs_out *o, int rc, struct fox_err *e) {
  if (o->direct)
    return rc;
  if (rc != 0) {
    remove(o->tmp);
    temps_drop(o->tmp);
    return rc;
  }
  int moved = rename(o->tmp, o->dst), err = errno;
  if (moved != 0)
    remove(o->tmp);
  temps_drop(o->tmp);
  if (moved != 0) {
    /* The user's name only: the temporary is gone and means nothing to them. */
    return fox_errf(e, FOX_EFAIL, "%s: cannot be written: %s", o->path, strerror(err));
  }
  return 0;
}

FILE *fs_out_fopen(struct fs_out *o, const char *path, int kind, struct fox_err *e) {
  if (fs_out_begin(o, path, kind, e) != 0)
    return NULL;
  /* Appending, a /dev/stdout that the shell sent to a file follows what was printed there. */
  FILE *f = fopen(o->tmp, o->direct ? "a" : (kind & ~FS_OUT_OWN) == FS_OUT_HDF5 ? "wb" : "w");
  if (!f)
    fox_errf(e, FOX_EFAIL, "%s: cannot be written: %s", path, strerror(errno));
  return f;
}

int fs_out_fclose(struct fs_out *o, FILE *f, int rc, struct fox_err *e) {
  int bad = ferror(f), err = errno;
  if (fclose(f) != 0 || bad) {
    err = bad ? err : errno;
    if (rc == 0)
      rc = fox_errf(e, FOX_EFAIL, "%s: writing it failed: %s", o->path, strerror(err));
  }
  return fs_out_end(o, rc, e);
}
