/* Files that appear whole or not at all (a temporary sibling renamed over the target), outputs
 * that never replace what the command reads, and inputs that are regular files. */
#ifndef FOX_FSUTIL_H
#define FOX_FSUTIL_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

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
/* An output being written: `tmp` is the name to write (the target itself when `direct`).
 * fs_out_begin follows symbolic links (the link's target is written, the link stays), writes a
 * device or FIFO directly (FS_OUT_TEXT) or refuses one (FS_OUT_HDF5: HDF5, which must seek, or
 * any file made elsewhere and renamed in) and a directory with FOX_EUSAGE. fs_out_end renames tmp over the target when
 * rc is 0 and removes it otherwise; it returns rc or the rename's failure. */
enum { FS_OUT_TEXT, FS_OUT_HDF5, FS_OUT_FILE = FS_OUT_HDF5 /* a page, an image: likewise */ };
/* Or'd into the kind for a file a command keeps for itself (a study's trials.csv): a FIFO or
 * device under its name is refused (FOX_EDATA) rather than written, which could block, and so
 * is a symbolic link (a link planted in OUTDIR would have a run write over what it names). */
#define FS_OUT_OWN 4
/* fs_write_bytes for a file a command keeps for itself (FS_OUT_FILE | FS_OUT_OWN): a link,
 * FIFO or device under its name is refused, never written through. */
int fs_write_own(const char *path, const void *buf, size_t len, struct fox_err *e);
/* fs_write_bytes for a whole file that must be a regular one (FS_OUT_FILE): a link is followed,
 * a FIFO or device refused. */
int fs_write_file(const char *path, const void *buf, size_t len, struct fox_err *e);
struct fs_out {
  char path[PATH_MAX];    /* the user's name, for messages */
  char dst[PATH_MAX];     /* the file written once links are followed */
  char tmp[PATH_MAX + 32];
  int direct;
};
int fs_out_begin(struct fs_out *o, const char *path, int kind, struct fox_err *e);
/* A device, FIFO or socket, or a descriptor of this process (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N: a regular file where the shell redirected it, which must be written where
 * it stands, not replaced): written directly. Any other name under /dev or /proc is what it
 * resolves to (/dev/shm/x is a file like any other). */
int fs_out_is_stream(const char *path);
/* Where a command's "wrote ..." notes go: stderr when the output `out` is this process's
 * stdout (/dev/stdout sent to a file or pipe), stdout otherwise. */
FILE *fs_note_stream(const char *out);
/* FOX_EDATA naming path when it exists as a symbolic link or anything but a directory: a
 * directory a command keeps for itself (a study's trials/, tb/), whose files it removes by name,
 * is never reached through a link (a link to the user's data would lose it). */
int fs_own_dir_check(const char *path, struct fox_err *e);
/* Whether path (links followed) is a regular file. */
int fs_is_regular(const char *path);
/* A descriptor appending to path (created 0644), refused (-1, e set, FOX_EDATA) unless it is a
 * regular file: a FIFO without a reader neither blocks nor swallows lines. */
int fs_append_open(const char *path, const char *what, struct fox_err *e);
int fs_out_end(struct fs_out *o, int rc, struct fox_err *e);
/* fs_out_begin + fopen of tmp (NULL with e set); fs_out_fclose closes (a write error becomes
 * rc) and ends. */
FILE *fs_out_fopen(struct fs_out *o, const char *path, int kind, struct fox_err *e);
int fs_out_fclose(struct fs_out *o, FILE *f, int rc, struct fox_err *e);

/* Outputs the user names never replace what the command reads. A command calls fs_guard_inputs
 * first: every input opened after it through fs_input_check is remembered; fs_guard_study marks
 * a study directory it reads (its study.h5, trials.csv, test.h5, rank files, trials/ and
 * state/). fs_out_guard(path) is then FOX_EUSAGE when path, its links followed, is one of those
 * inputs or a file of such a study. The command's own fixed outputs (report --test's test.h5)
 * are not checked: replacing them is their purpose. */
void fs_guard_inputs(void);
void fs_guard_study(const char *dir);
int fs_out_guard(const char *path, struct fox_err *e);
/* Before opening an input: `code` (FOX_EUSAGE for configs, FOX_EDATA for data) naming the path
 * when it is a directory, FIFO, device or socket (a FIFO would block the open forever); 0 when
 * it does not exist (the open says why). */
int fs_input_check(const char *path, const char *what, int code, struct fox_err *e);

/* mkdir -p; FOX_EUSAGE naming the first part of the path that is there but not a directory. */
int fs_mkdirs(const char *dir, struct fox_err *e);

#endif
