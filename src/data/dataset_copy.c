/* The stored copy of a study's dataset (OUTDIR/dataset-NNNN.h5, one per host, written by its
 * lowest rank) and the crc32 sums by which every rank file proves what its device received
 * without a copy of its own (docs/files.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "data/dataset.h"
#include "util/fsutil.h"
#include "util/h5io.h"

/* The floats are noisy mantissas: shuffle + deflate 1 keeps most of what level 9 would save at a
 * fraction of its time, and only one rank per host pays it. */
#define COPY_DEFLATE 1
/* Rows read at a time when a copy's sums are checked: ~13 MiB of features. */
#define COPY_SLAB_ROWS 65536

uint32_t dataset_crc32(uint32_t crc, const void *p, size_t bytes) {
  const unsigned char *b = p;
  uLong c = crc;
  /* zlib takes a uInt length: a 5M-bar feature array is over 1 GiB. */
  while (bytes > 0) {
    uInt k = bytes > (1u << 30) ? (1u << 30) : (uInt)bytes;
    c = crc32(c, b, k);
    b += k;
    bytes -= k;
  }
  return (uint32_t)c;
}

void dataset_copy_name(int host_root, char *out, size_t n) {
  snprintf(out, n, "dataset-%04d.h5", host_root);
}

struct copy_ctx_ {
  const struct dataset *ds;
  const char *host, *source;
  uint32_t crc[2];
};

static int copy_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct copy_ctx_ *c = ctx;
  int64_t bars = (int64_t)c->ds->n;
  FOX_TRY(h5io_attr_write_str(f, "kind", "dataset copy", e));
  FOX_TRY(h5io_attr_write(f, "bars", H5T_NATIVE_INT64, &bars, 1, e));
  FOX_TRY(h5io_attr_write(f, "features_crc32", H5T_NATIVE_UINT32, &c->crc[0], 1, e));
  FOX_TRY(h5io_attr_write(f, "prices_crc32", H5T_NATIVE_UINT32, &c->crc[1], 1, e));
  FOX_TRY(h5io_attr_write_str(f, "host", c->host, e));
  FOX_TRY(h5io_attr_write_str(f, "source", c->source, e));
  FOX_TRY(h5io_attr_write_str(f, "foxopt_version", FOXOPT_VERSION, e));
  FOX_TRY(h5io_write(f, "features", H5T_NATIVE_FLOAT, c->ds->features, c->ds->n,
                     (size_t)c->ds->ncol, COPY_DEFLATE, e));
  return h5io_write(f, "prices", H5T_NATIVE_FLOAT, c->ds->prices, c->ds->n, 4, COPY_DEFLATE, e);
}

int dataset_copy_sums(const char *path, size_t *bars, uint32_t crc[2], struct fox_err *e) {
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a dataset copy from foxopt run", &f, e));
  int64_t b = -1;
  int rc = h5io_attr_read(f, "bars", H5T_NATIVE_INT64, &b, 1, path, e);
  if (rc == 0)
    rc = h5io_attr_read(f, "features_crc32", H5T_NATIVE_UINT32, &crc[0], 1, path, e);
  if (rc == 0)
    rc = h5io_attr_read(f, "prices_crc32", H5T_NATIVE_UINT32, &crc[1], 1, path, e);
  if (rc == 0 && b < 0)
    rc = fox_errf(e, FOX_EDATA, "%s: attribute bars = %lld, expected a count", path,
                  (long long)b);
  H5Fclose(f);
  *bars = (size_t)b;
  return rc;
}

void dataset_sums(const struct dataset *ds, uint32_t crc[2]) {
  crc[0] = dataset_crc32(0, ds->features, ds->n * (size_t)ds->ncol * sizeof(float));
  crc[1] = dataset_crc32(0, ds->prices, ds->n * 4 * sizeof(float));
}

uint32_t dataset_meta_sum(const struct dataset *ds) {
  size_t w = (size_t)ds->ncol * sizeof(float);
  uint32_t c = dataset_crc32(0, ds->split, sizeof ds->split);
  c = dataset_crc32(c, &ds->bar_seconds, sizeof ds->bar_seconds);
  c = dataset_crc32(c, &ds->bars_per_year, sizeof ds->bars_per_year);
  c = ds->norm_mean ? dataset_crc32(c, ds->norm_mean, w) : c;
  return ds->norm_std ? dataset_crc32(c, ds->norm_std, w) : c;
}

int dataset_copy_write(const char *path, const struct dataset *ds, const uint32_t crc[2],
                       const char *host, const char *source, struct fox_err *e) {
  if (!ds->features || !ds->prices)
    return fox_errf(e, FOX_EFAIL, "%s: the dataset's arrays were handed to a device already",
                    path);
  struct copy_ctx_ c = {ds, host, source, {crc[0], crc[1]}};
  /* A resume keeps the copy of the same arrays: a host's lowest rank rewrites 1 GB otherwise. */
  if (fs_exists(path)) {
    size_t bars;
    uint32_t had[2];
    struct fox_err ignore = {0};
    h5io_quiet();
    if (dataset_copy_sums(path, &bars, had, &ignore) == 0 && bars == ds->n &&
        had[0] == c.crc[0] && had[1] == c.crc[1])
      return 0;
    H5Eclear2(H5E_DEFAULT);
  }
  return h5io_create_own(path, copy_body_, &c, e);
}

/* The crc32 of a stored [n, d1] f32 array, read in slabs (d1 0: any width, the user's
 * feature columns after the built-in ones). */
static int array_crc_(hid_t f, const char *name, size_t n, size_t d1, const char *path,
                      uint32_t *crc, size_t *width, struct fox_err *e) {
  size_t g0, g1;
  FOX_TRY(h5io_dims(f, name, &g0, &g1, path, e));
  if (d1 == 0)
    d1 = g1 >= FOX_NFEAT ? g1 : FOX_NFEAT;
  if (width)
    *width = d1;
  if (g0 != n || g1 != d1)
    return fox_errf(e, FOX_EDATA, "%s: /%s has shape [%zu, %zu], expected [%zu, %zu] (attribute "
                                  "bars)", path, name, g0, g1, n, d1);
  size_t rows = n < COPY_SLAB_ROWS ? (n ? n : 1) : COPY_SLAB_ROWS;
  float *buf = malloc(rows * d1 * sizeof *buf);
  if (!buf)
    return fox_errf(e, FOX_EFAIL, "%s: out of memory for a slab of /%s", path, name);
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT), fs = ds >= 0 ? H5Dget_space(ds) : -1;
  int rc = fs < 0 ? h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, name) : 0;
  uint32_t c = 0;
  for (size_t at = 0; rc == 0 && at < n; at += rows) {
    hsize_t start[2] = {at, 0}, count[2] = {at + rows > n ? n - at : rows, d1};
    hid_t ms = H5Screate_simple(2, count, NULL);
    if (ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf) < 0) {
      char what[600];
      snprintf(what, sizeof what, "%s: reading /%s", path, name);
      rc = h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
    } else {
      c = dataset_crc32(c, buf, (size_t)count[0] * d1 * sizeof *buf);
    }
    if (ms >= 0)
      H5Sclose(ms);
  }
  if (fs >= 0)
    H5Sclose(fs);
  if (ds >= 0)
    H5Dclose(ds);
  free(buf);
  *crc = c;
  return rc;
}

int dataset_copy_verify(const char *path, size_t *bars, uint32_t crc[2], size_t *width,
                        struct fox_err *e) {
  FOX_TRY(dataset_copy_sums(path, bars, crc, e));
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a dataset copy from foxopt run", &f, e));
  uint32_t got[2] = {0, 0};
  int rc = array_crc_(f, "features", *bars, 0, path, &got[0], width, e);
  if (rc == 0)
    rc = array_crc_(f, "prices", *bars, 4, path, &got[1], NULL, e);
  H5Fclose(f);
  static const char *const names[2] = {"features", "prices"};
  for (int i = 0; rc == 0 && i < 2; i++)
    if (got[i] != crc[i])
      rc = fox_errf(e, FOX_EDATA, "%s: /%s has crc32 %08x, its attribute %s_crc32 says %08x: "
                                  "the stored copy is damaged", path, names[i], got[i],
                    names[i], crc[i]);
  return rc;
}
