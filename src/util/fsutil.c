/* Atomic output files: every writer goes through fs_temp_name + fs_commit. */
#include "util/fsutil.h"

#include <errno.h>
#include <stdio.h>
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
    return fox_errf(e, FOX_EFAIL, "%s: cannot rename %s into place: %s", path, tmp, strerror(err));
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
