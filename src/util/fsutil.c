/* Atomic output files: every writer goes through fs_temp_name + fs_commit. */
#include "util/fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fs_temp_name(const char *path, char *out, size_t n) {
  snprintf(out, n, "%s.tmp.%ld", path, (long)getpid());
}

int fs_commit(const char *tmp, const char *path, struct fox_err *e) {
  if (rename(tmp, path) != 0) {
    int err = errno;
    remove(tmp);
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
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return fox_errf(e, FOX_EFAIL, "%s: cannot create directory: %s", buf, strerror(errno));
      *p = save;
      if (!save)
        return 0;
    }
  }
}

int fs_write_bytes(const char *path, const void *buf, size_t len, struct fox_err *e) {
  char tmp[4096];
  fs_temp_name(path, tmp, sizeof tmp);
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return fox_errf(e, FOX_EFAIL, "%s: cannot be written: %s", path, strerror(errno));
  size_t put = fwrite(buf, 1, len, f);
  int bad = put != len || fflush(f) != 0;
  int err = errno;
  if (fclose(f) != 0 || bad) {
    remove(tmp);
    return fox_errf(e, FOX_EFAIL, "%s: writing it failed: %s", path, strerror(bad ? err : errno));
  }
  return fs_commit(tmp, path, e);
}

int fs_read_bytes(const char *path, const char *what, void **buf, size_t *len,
                  struct fox_err *e) {
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
