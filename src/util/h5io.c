/* HDF5 helpers: every call checked, every failure reported with the path it concerned. */
#include "util/h5io.h"

#include "util/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void h5io_quiet(void) {
  /* The error stack's printer is per thread in a thread-safe HDF5: study trials write from
   * their own threads. */
  static _Thread_local int done;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    done = 1;
  }
}

/* The innermost message, up to its first line break; and the system's own words when a
 * deeper frame quotes them (the sec2 driver: "error message = 'No space left on device'"). */
static herr_t walk_(unsigned n, const H5E_error2_t *err, void *data) {
  char *out = data;
  if (n == 0) {
    snprintf(out, 256, "%s", err->desc);
    out[strcspn(out, "\n")] = '\0';
  }
  const char *sys = strstr(err->desc, "error message = '");
  if (sys && !strstr(out, " (")) {
    sys += strlen("error message = '");
    size_t len = strcspn(sys, "'"), have = strlen(out);
    snprintf(out + have, 256 - have, " (%.*s)", (int)len, sys);
  }
  return 0;
}

int h5io_fail(struct fox_err *e, int code, const char *src, int line, const char *what) {
  char msg[256] = "no HDF5 message";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_, msg);
  H5Eclear2(H5E_DEFAULT);
  return fox_errf(e, code, "%s:%d: %s: %s", src, line, what, msg);
}

int h5io_write(hid_t loc, const char *name, hid_t type, const void *data, size_t d0, size_t d1,
               int deflate, struct fox_err *e) {
  hsize_t dims[2] = {d0, d1};
  int rank = d1 ? 2 : 1;
  int rc = 0;
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (space < 0 || dcpl < 0) {
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name);
    goto out;
  }
  if (deflate > 0 && d0 > 0) {
    size_t row = d1 ? d1 : 1;
    hsize_t chunk[2] = {d0 < 65536 / row ? d0 : (65536 / row ? 65536 / row : 1), d1};
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
        H5Pset_deflate(dcpl, (unsigned)deflate) < 0) {
      rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name);
      goto out;
    }
  }
  hid_t ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (ds < 0 || (d0 > 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0))
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name);
  if (ds >= 0)
    H5Dclose(ds);
out:
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (space >= 0)
    H5Sclose(space);
  return rc;
}

int h5io_dims(hid_t loc, const char *name, size_t *d0, size_t *d1, const char *file,
              struct fox_err *e) {
  char what[512];
  snprintf(what, sizeof what, "%s: dataset %s", file, name);
  if (!h5io_exists(loc, name))
    return fox_errf(e, FOX_EDATA, "%s: missing dataset %s", file, name);
  hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
  if (ds < 0)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  hid_t space = H5Dget_space(ds);
  hsize_t dims[2] = {0, 0};
  int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
  if (space >= 0)
    H5Sclose(space);
  H5Dclose(ds);
  if (rank < 1 || rank > 2)
    return fox_errf(e, FOX_EDATA, "%s: expected rank 1 or 2, got %d", what, rank);
  *d0 = dims[0];
  *d1 = rank == 2 ? dims[1] : 0;
  return 0;
}

int h5io_read(hid_t loc, const char *name, hid_t type, void *data, size_t d0, size_t d1,
              const char *file, struct fox_err *e) {
  size_t g0, g1;
  FOX_TRY(h5io_dims(loc, name, &g0, &g1, file, e));
  if (g0 != d0 || g1 != d1)
    return fox_errf(e, FOX_EDATA, "%s: dataset %s has shape [%zu, %zu], expected [%zu, %zu]", file,
                    name, g0, g1, d0, d1);
  char what[512];
  snprintf(what, sizeof what, "%s: reading %s", file, name);
  hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
  h5Check(ds, e, what);
  herr_t rc = d0 > 0 ? H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : 0;
  /* Take HDF5's message before H5Dclose clears its error stack. */
  int st = rc < 0 ? h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what) : 0;
  H5Dclose(ds);
  return st;
}

int h5io_attr_write(hid_t loc, const char *name, hid_t type, const void *data, size_t n,
                    struct fox_err *e) {
  hsize_t dims[1] = {n};
  hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
  h5Check(space, e, name);
  hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a < 0 ? -1 : H5Awrite(a, type, data);
  if (a >= 0)
    H5Aclose(a);
  H5Sclose(space);
  h5Check(rc, e, name);
  return 0;
}

int h5io_attr_read(hid_t loc, const char *name, hid_t type, void *data, size_t n,
                   const char *file, struct fox_err *e) {
  if (H5Aexists(loc, name) <= 0)
    return fox_errf(e, FOX_EDATA, "%s: missing attribute '%s'", file, name);
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  char what[512];
  snprintf(what, sizeof what, "%s: attribute '%s'", file, name);
  h5Check(a, e, what);
  hid_t space = H5Aget_space(a);
  hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  if (space >= 0)
    H5Sclose(space);
  if (count != (hssize_t)n) {
    H5Aclose(a);
    return fox_errf(e, FOX_EDATA, "%s: expected %zu values, got %lld", what, n, (long long)count);
  }
  herr_t rc = H5Aread(a, type, data);
  int st = rc < 0 ? h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what) : 0;
  H5Aclose(a);
  return st;
}

int h5io_attr_write_str(hid_t loc, const char *name, const char *s, struct fox_err *e) {
  hid_t t = H5Tcopy(H5T_C_S1);
  h5Check(t, e, name);
  size_t len = strlen(s);
  H5Tset_size(t, len ? len : 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  int rc = h5io_attr_write(loc, name, t, len ? s : "", 1, e);
  H5Tclose(t);
  return rc;
}

int h5io_attr_read_str(hid_t loc, const char *name, char *s, size_t n, const char *file,
                       struct fox_err *e) {
  if (H5Aexists(loc, name) <= 0)
    return fox_errf(e, FOX_EDATA, "%s: missing attribute '%s'", file, name);
  char what[512];
  snprintf(what, sizeof what, "%s: attribute '%s'", file, name);
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  h5Check(a, e, what);
  hid_t ft = H5Aget_type(a);
  size_t sz = ft >= 0 ? H5Tget_size(ft) : 0;
  int is_var = ft >= 0 && H5Tis_variable_str(ft) > 0;
  int rc = 0;
  if (ft < 0 || H5Tget_class(ft) != H5T_STRING) {
    rc = fox_errf(e, FOX_EDATA, "%s: expected a string", what);
  } else if (is_var) {
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    char *v = NULL;
    if (H5Aread(a, mt, &v) < 0)
      rc = h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
    else
      snprintf(s, n, "%s", v ? v : "");
    if (v)
      H5free_memory(v);
    H5Tclose(mt);
  } else {
    char *buf = calloc(1, sz + 1);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, sz ? sz : 1);
    if (!buf)
      rc = fox_errf(e, FOX_EFAIL, "%s: out of memory", what);
    else if (H5Aread(a, mt, buf) < 0)
      rc = h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
    else if (strlen(buf) >= n)
      rc = fox_errf(e, FOX_EDATA, "%s: %zu characters, more than the %zu expected", what,
                    strlen(buf), n - 1);
    else
      snprintf(s, n, "%s", buf);
    free(buf);
    H5Tclose(mt);
  }
  if (ft >= 0)
    H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

int h5io_attr_write_strs(hid_t loc, const char *name, const char *const *s, size_t n,
                         struct fox_err *e) {
  size_t w = 1;
  for (size_t i = 0; i < n; i++)
    w = strlen(s[i]) + 1 > w ? strlen(s[i]) + 1 : w;
  char *buf = calloc(n ? n * w : 1, 1);
  mallocCheck(buf, e);
  for (size_t i = 0; i < n; i++)
    memcpy(buf + i * w, s[i], strlen(s[i]));
  hid_t t = H5Tcopy(H5T_C_S1);
  h5Check(t, e, name);
  H5Tset_size(t, w);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  hsize_t dims[1] = {n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t a = space < 0 ? -1 : H5Acreate2(loc, name, t, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a < 0 ? -1 : H5Awrite(a, t, buf);
  if (a >= 0)
    H5Aclose(a);
  if (space >= 0)
    H5Sclose(space);
  H5Tclose(t);
  free(buf);
  h5Check(rc, e, name);
  return 0;
}

int h5io_write_strs(hid_t loc, const char *name, const char *buf, size_t n, size_t width,
                    struct fox_err *e) {
  hid_t t = H5Tcopy(H5T_C_S1);
  h5Check(t, e, name);
  int rc = H5Tset_size(t, width) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0
               ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name)
               : h5io_write(loc, name, t, buf, n, 0, 0, e);
  H5Tclose(t);
  return rc;
}

int h5io_read_strs(hid_t loc, const char *name, char *buf, size_t n, size_t width,
                   const char *file, struct fox_err *e) {
  hid_t t = H5Tcopy(H5T_C_S1);
  h5Check(t, e, name);
  int rc = H5Tset_size(t, width) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0
               ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, name)
               : h5io_read(loc, name, t, buf, n, 0, file, e);
  H5Tclose(t);
  return rc;
}

int h5io_exists(hid_t loc, const char *path) {
  /* H5Lexists fails on a missing intermediate group, so test each prefix. */
  char buf[512];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + (buf[0] == '/'); ; p++) {
    if (*p == '/' || *p == '\0') {
      char save = *p;
      *p = '\0';
      if (H5Lexists(loc, buf, H5P_DEFAULT) <= 0)
        return 0;
      *p = save;
      if (save == '\0')
        return 1;
    }
  }
}

int h5io_create_atomic(const char *path, int (*body)(hid_t f, const void *ctx, struct fox_err *e),
                       const void *ctx, struct fox_err *e) {
  h5io_quiet();
  char tmp[4096];
  fs_temp_name(path, tmp, sizeof tmp);
  hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0)
    return h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, tmp);
  int rc = body(f, ctx, e);
  if (H5Fclose(f) < 0 && rc == 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, tmp);
  if (rc != 0) {
    remove(tmp);
    return fox_err_wrap(e, "writing %s", path);
  }
  return fs_commit(tmp, path, e);
}

int h5io_open_read(const char *path, const char *expected, hid_t *f, struct fox_err *e) {
  h5io_quiet();
  FILE *probe = fopen(path, "rb");
  if (!probe)
    return fox_errf(e, FOX_EDATA, "%s: cannot open %s", path, expected);
  fclose(probe);
  if (H5Fis_hdf5(path) <= 0)
    return fox_errf(e, FOX_EDATA, "%s: not an HDF5 file (expected %s)", path, expected);
  *f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*f < 0)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, path);
  return 0;
}
