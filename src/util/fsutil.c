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
