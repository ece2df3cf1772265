/* Files that appear whole or not at all: write to a temporary sibling, then rename over. */
#ifndef FOX_FSUTIL_H
#define FOX_FSUTIL_H

#include <stddef.h>

#include "util/error.h"

/* A temporary name in the same directory as `path` (so rename is atomic): "path.tmp.PID". */
void fs_temp_name(const char *path, char *out, size_t n);
/* rename(tmp, path); on failure removes tmp and reports. */
int fs_commit(const char *tmp, const char *path, struct fox_err *e);
int fs_exists(const char *path);
/* Writes len bytes to `path` through a temporary sibling and a rename. */
int fs_write_bytes(const char *path, const void *buf, size_t len, struct fox_err *e);
/* A whole file into memory (*buf malloc'd, the caller frees); FOX_EDATA naming the file when
 * it cannot be read, `what` saying what it was expected to be. */
int fs_read_bytes(const char *path, const char *what, void **buf, size_t *len,
                  struct fox_err *e);
/* mkdir -p */
int fs_mkdirs(const char *dir, struct fox_err *e);

#endif
