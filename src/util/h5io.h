/* Small HDF5 helpers shared by every file foxopt writes: checked calls, typed datasets and
 * attributes, and errors that name the file and the dataset path with HDF5's own message. */
#ifndef FOX_H5IO_H
#define FOX_H5IO_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Turns HDF5's automatic stack printing off (once); our messages carry its innermost text. */
void h5io_quiet(void);
/* Writes "FILE:LINE: <what>: <HDF5 message>" into e. */
int h5io_fail(struct fox_err *e, int code, const char *src, int line, const char *what);

#define h5Check(expr, e, what)                                                                    \
  do {                                                                                            \
    if ((expr) < 0)                                                                               \
      return h5io_fail((e), FOX_EFAIL, __FILE__, __LINE__, (what));                               \
  } while (0)

/* Datasets: rank 1 or 2 (dims[1] == 0 means rank 1); chunked + shuffle + deflate when level > 0. */
int h5io_write(hid_t loc, const char *name, hid_t type, const void *data, size_t d0, size_t d1,
               int deflate, struct fox_err *e);
/* Reads a numeric dataset of exactly [d0, d1] (FOX_EDATA naming the file and dataset when it is
 * missing, unreadable, of another shape or not numbers); HDF5 converts between number types. */
int h5io_read(hid_t loc, const char *name, hid_t type, void *data, size_t d0, size_t d1,
              const char *file, struct fox_err *e);
/* h5io_read of floats or doubles (`type` H5T_NATIVE_FLOAT or _DOUBLE) that must be finite and
 * >= min (-INFINITY: any finite value) from row `from` on; the first that is not fails naming
 * the dataset and its index: "FILE: /norm/std[7] = -1, expected a finite number >= 0". */
int h5io_read_finite(hid_t loc, const char *name, hid_t type, void *data, size_t d0, size_t d1,
                     size_t from, double min, const char *file, struct fox_err *e);
/* The extent of a dataset (d1 = 0 for rank 1); FOX_EDATA naming the path when it is missing,
 * unreadable, a single value, of rank > 2 or [N, 0]. */
int h5io_dims(hid_t loc, const char *name, size_t *d0, size_t *d1, const char *file,
              struct fox_err *e);
/* "[d0]" for rank 1 (d1 == 0), "[d0, d1]" for rank 2: how h5py and h5dump show shapes. */
void h5io_shape(size_t d0, size_t d1, char *buf, size_t n);

int h5io_attr_write(hid_t loc, const char *name, hid_t type, const void *data, size_t n,
                    struct fox_err *e);
int h5io_attr_read(hid_t loc, const char *name, hid_t type, void *data, size_t n,
                   const char *file, struct fox_err *e);
int h5io_attr_write_str(hid_t loc, const char *name, const char *s, struct fox_err *e);
/* One string, in any form h5py writes: fixed-length NULLTERM, NULLPAD or SPACEPAD, or
 * variable-length, ASCII or UTF-8 (bytes kept as stored). FOX_EDATA when it is missing, not a
 * string, not exactly one, or n - 1 characters would not hold it. */
int h5io_attr_read_str(hid_t loc, const char *name, char *s, size_t n, const char *file,
                       struct fox_err *e);
/* A fixed-length string array dataset or attribute (names of features). */
int h5io_attr_write_strs(hid_t loc, const char *name, const char *const *s, size_t n,
                         struct fox_err *e);
/* A dataset of n fixed-width strings (buf holds n * width bytes, each NUL-padded). */
int h5io_write_strs(hid_t loc, const char *name, const char *buf, size_t n, size_t width,
                    struct fox_err *e);
/* A rank-1 dataset of n strings in any form h5io_attr_read_str takes, into n slots of width
 * bytes. */
int h5io_read_strs(hid_t loc, const char *name, char *buf, size_t n, size_t width,
                   const char *file, struct fox_err *e);
/* Whether `path` names an object: 1, 0, or -1 when HDF5 cannot tell (damaged metadata). */
int h5io_exists(hid_t loc, const char *path);
/* Reads every checksummed dataset of the file through (h5io_write gives each a Fletcher32 sum
 * per chunk): FOX_EDATA naming the file and dataset when a byte differs from what was written
 * or the file is not HDF5; strict: also when any object cannot be opened or read (otherwise
 * that is left to the reader that needs it, which names it more precisely). */
int h5io_verify(const char *path, int strict, struct fox_err *e);
/* The same for readers: 1, 0, or FOX_EDATA naming the file and path when the metadata on the
 * way to it cannot be read (never "missing" for a damaged file). */
int h5io_find(hid_t loc, const char *path, const char *file, struct fox_err *e);

/* A whole new file that appears only complete: `body` writes into a temporary sibling, which is
 * renamed over `path` when it succeeds and removed when it fails. */
int h5io_create_atomic(const char *path, int (*body)(hid_t f, const void *ctx, struct fox_err *e),
                       const void *ctx, struct fox_err *e);
/* The same for a file a command keeps for itself (a study's study.h5, rank, trial, copy and
 * test files): a link, FIFO or device under its name is refused (FOX_EDATA, "remove it") rather
 * than followed or replaced, so a link planted in OUTDIR never has a run write over an input. */
int h5io_create_own(const char *path, int (*body)(hid_t f, const void *ctx, struct fox_err *e),
                    const void *ctx, struct fox_err *e);
/* The same file made in memory (HDF5's core driver, no backing store): *buf (malloc'd, the
 * caller frees) holds *len bytes that are a whole HDF5 file, to send over MPI or write with
 * fs_write_bytes. */
int h5io_image_create(int (*body)(hid_t f, const void *ctx, struct fox_err *e), const void *ctx,
                      void **buf, size_t *len, struct fox_err *e);
/* Opens such an image read-only (the bytes must outlive *f); `name` is for messages. */
int h5io_image_open(const void *buf, size_t len, const char *name, hid_t *f, struct fox_err *e);
/* Opens an existing HDF5 file read-only; `expected` completes "not an HDF5 file (expected
 * ...)" and "cannot open ..." (exit 3 either way). */
int h5io_open_read(const char *path, const char *expected, hid_t *f, struct fox_err *e);

#endif
