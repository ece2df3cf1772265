/* HDF5 helpers: every call checked, every failure reported with the path it concerned. */
#include "util/h5io.h"

#include "util/fsutil.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* What went wrong, in the user's words, from the minor error codes of the whole stack: the
 * library's own descriptions ("truncated file: eof = 13696, sblock->base_addr = 0") say
 * nothing to someone who did not write HDF5. */
struct cause_ {
  int truncated, damaged, missing, checksum;
};

static herr_t cause_walk_(unsigned n, const H5E_error2_t *err, void *data) {
  (void)n;
  struct cause_ *c = data;
  hid_t m = err->min_num;
  c->truncated |= m == H5E_TRUNCATED;
  c->damaged |= m == H5E_BADMESG || m == H5E_CANTDECODE || m == H5E_VERSION ||
                m == H5E_BADFILE || m == H5E_CANTLOAD || m == H5E_CANTUNSERIALIZE ||
                m == H5E_READERROR || m == H5E_CANTFILTER || m == H5E_BADVALUE ||
                m == H5E_SEEKERROR || m == H5E_CANTPROTECT || m == H5E_BADSIZE;
  c->missing |= m == H5E_NOTFOUND;
  /* h5io_write's Fletcher32 filter: the chunk's bytes are not the ones written */
  c->checksum |= err->desc && strstr(err->desc, "Fletcher32") != NULL;
  return 0;
}

int h5io_fail(struct fox_err *e, int code, const char *src, int line, const char *what) {
  char msg[256] = "no HDF5 message";
  struct cause_ c = {0};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_, msg);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, cause_walk_, &c);
  H5Eclear2(H5E_DEFAULT);
  /* The system's words when it refused (a full disk, a permission): walk_ put them in
   * brackets after the library's. */
  const char *sys = strstr(msg, " (");
  char plain[160];
  if (sys && msg[strlen(msg) - 1] == ')')
    snprintf(plain, sizeof plain, "%.*s", (int)(strlen(sys) - 3), sys + 2);
  else if (c.checksum)
    snprintf(plain, sizeof plain, "damaged: its checksum does not match what foxopt wrote");
  else if (c.truncated || (code == FOX_EDATA && c.damaged))
    snprintf(plain, sizeof plain, "not a complete foxopt file (truncated or corrupt)");
  else if (c.missing)
    snprintf(plain, sizeof plain, "not in the file");
  else if (code == FOX_EDATA)
    snprintf(plain, sizeof plain, "unreadable (damaged, or not written by foxopt)");
  else
    snprintf(plain, sizeof plain, "could not be written");
  /* The developer's detail (this source's line, HDF5's message) only on request. */
  const char *debug = getenv("FOXOPT_DEBUG");
  if (debug && *debug && strcmp(debug, "0") != 0)
    return fox_errf(e, code, "%s: %s [%s:%d: HDF5: %s]", what, plain, src, line, msg);
  return fox_errf(e, code, "%s: %s", what, plain);
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
  /* Every dataset is chunked with a Fletcher32 checksum per chunk, so that a flipped byte in
   * its payload is a read error naming the file, never a silently different number. Chunks of
   * 64 K elements when deflated (as before), of about 1 MiB otherwise (few chunks to index). */
  if (d0 > 0) {
    size_t row = d1 ? d1 : 1, bytes = H5Tget_size(type) * row;
    size_t want = deflate > 0 ? 65536 / row : ((size_t)1 << 20) / (bytes ? bytes : 1);
    hsize_t chunk[2] = {d0 < want ? d0 : (want ? want : 1), d1};
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        (deflate > 0 && (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, (unsigned)deflate) < 0)) ||
        H5Pset_fletcher32(dcpl) < 0) {
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

void h5io_shape(size_t d0, size_t d1, char *buf, size_t n) {
  if (d1)
    snprintf(buf, n, "[%zu, %zu]", d0, d1);
  else
    snprintf(buf, n, "[%zu]", d0);
}

static const char *class_name_(H5T_class_t c) {
  switch (c) {
  case H5T_INTEGER:
    return "integers";
  case H5T_FLOAT:
    return "floats";
  case H5T_STRING:
    return "strings";
  case H5T_ENUM:
    return "an enum (h5py's bool?)";
  case H5T_COMPOUND:
    return "a compound type";
  case H5T_ARRAY:
    return "an array type";
  case H5T_VLEN:
    return "variable-length sequences";
  case H5T_OPAQUE:
    return "opaque bytes";
  default:
    return "an unsupported type";
  }
}

/* HDF5 converts between every integer and float type (h5py writes Python ints as int64 and
 * floats as f64), but not from strings or compounds to numbers: say so rather than pass on its
 * "no appropriate function for conversion path". */
static int check_numeric_(hid_t file_type, hid_t mem_type, const char *what, struct fox_err *e) {
  H5T_class_t want = H5Tget_class(mem_type), got = H5Tget_class(file_type);
  if (want != H5T_INTEGER && want != H5T_FLOAT)
    return 0;
  if (got == H5T_INTEGER || got == H5T_FLOAT)
    return 0;
  if (got == H5T_NO_CLASS)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  return fox_errf(e, FOX_EDATA, "%s: holds %s, expected numbers", what, class_name_(got));
}

/* The absolute path of `name` under loc, as h5py and h5dump name it: a relative name is joined
 * to loc's own path (study.h5's /trials group), so that messages say where to look. */
static const char *abs_name_(hid_t loc, const char *name, char *buf, size_t n) {
  char at[512];
  ssize_t len = name[0] == '/' ? 0 : H5Iget_name(loc, at, sizeof at);
  if (len <= 0 || (size_t)len >= sizeof at) {
    H5Eclear2(H5E_DEFAULT);
    return name;
  }
  snprintf(buf, n, "%s%s%s", at, strcmp(at, "/") != 0 ? "/" : "", name);
  return buf;
}

/* Dataset `name` of loc, open; -1 with e set when it is missing, is a group or a committed type,
 * or its header cannot be read (damaged metadata). */
static hid_t dataset_open_(hid_t loc, const char *name, const char *file, struct fox_err *e) {
  char full[600];
  const char *nm = abs_name_(loc, name, full, sizeof full);
  int has = h5io_find(loc, name, file, e);
  if (has <= 0) {
    if (has == 0)
      fox_errf(e, FOX_EDATA, "%s: missing dataset %s", file, nm);
    return -1;
  }
  hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
  if (o < 0) {
    char what[1200];
    snprintf(what, sizeof what, "%s: %s", file, nm);
    h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
    return -1;
  }
  H5I_type_t t = H5Iget_type(o);
  if (t == H5I_DATASET)
    return o;
  H5Oclose(o);
  fox_errf(e, FOX_EDATA, "%s: %s is a %s, expected a dataset", file, nm,
           t == H5I_GROUP ? "group" : "named datatype");
  return -1;
}

int h5io_dims(hid_t loc, const char *name, size_t *d0, size_t *d1, const char *file,
              struct fox_err *e) {
  char what[1200], full[600];
  snprintf(what, sizeof what, "%s: dataset %s", file, abs_name_(loc, name, full, sizeof full));
  hid_t ds = dataset_open_(loc, name, file, e);
  if (ds < 0)
    return e->code;
  hid_t space = H5Dget_space(ds);
  /* Ask the rank first: a foreign file may hold more dimensions than foxopt ever writes. */
  int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  H5S_class_t kind = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
  hsize_t dims[H5S_MAX_RANK] = {0};
  if (rank > 0 && H5Sget_simple_extent_dims(space, dims, NULL) < 0)
    rank = -1;
  if (space >= 0)
    H5Sclose(space);
  H5Dclose(ds);
  if (rank < 0)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  if (rank == 0)
    return fox_errf(e, FOX_EDATA, "%s: %s, expected an array", what,
                    kind == H5S_NULL ? "is empty (h5py.Empty)" : "holds a single value");
  if (rank > 2)
    return fox_errf(e, FOX_EDATA, "%s: has %d dimensions, expected 1 or 2", what, rank);
  /* d1 == 0 stands for rank 1 everywhere: a rank-2 [N, 0] would pass for [N] and read nothing. */
  if (rank == 2 && dims[1] == 0)
    return fox_errf(e, FOX_EDATA, "%s: has shape [%llu, 0], an empty second dimension", what,
                    (unsigned long long)dims[0]);
  *d0 = dims[0];
  *d1 = rank == 2 ? dims[1] : 0;
  return 0;
}

int h5io_read(hid_t loc, const char *name, hid_t type, void *data, size_t d0, size_t d1,
              const char *file, struct fox_err *e) {
  size_t g0, g1;
  FOX_TRY(h5io_dims(loc, name, &g0, &g1, file, e));
  char full[600];
  const char *nm = abs_name_(loc, name, full, sizeof full);
  if (g0 != d0 || g1 != d1) {
    char got[64], want[64];
    h5io_shape(g0, g1, got, sizeof got);
    h5io_shape(d0, d1, want, sizeof want);
    return fox_errf(e, FOX_EDATA, "%s: dataset %s has shape %s, expected %s", file, nm, got,
                    want);
  }
  char what[1200];
  snprintf(what, sizeof what, "%s: reading %s", file, nm);
  hid_t ds = dataset_open_(loc, name, file, e);
  if (ds < 0)
    return e->code;
  hid_t ft = H5Dget_type(ds);
  int st = ft < 0 ? h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what)
                  : check_numeric_(ft, type, what, e);
  if (ft >= 0)
    H5Tclose(ft);
  /* Take HDF5's message before H5Dclose clears its error stack. */
  if (st == 0 && d0 > 0 && H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    st = h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  H5Dclose(ds);
  return st;
}

/* The message of a value that fails h5io_read_finite: its index as the dataset has it. */
static int bad_value_(const char *file, const char *name, size_t k, size_t d1, size_t from,
                      double v, double min, struct fox_err *e) {
  char at[64], need[64] = "a finite number", rows[64] = "";
  if (d1)
    snprintf(at, sizeof at, "[%zu, %zu]", k / d1, k % d1);
  else
    snprintf(at, sizeof at, "[%zu]", k);
  if (min > -INFINITY)
    snprintf(need, sizeof need, "a finite number >= %g", min);
  if (from > 0)
    snprintf(rows, sizeof rows, " from row %zu on", from);
  return fox_errf(e, FOX_EDATA, "%s: %s%s = %g, expected %s%s", file, name, at, v, need, rows);
}

int h5io_read_finite(hid_t loc, const char *name, hid_t type, void *data, size_t d0, size_t d1,
                     size_t from, double min, const char *file, struct fox_err *e) {
  int is_f32 = H5Tequal(type, H5T_NATIVE_FLOAT) > 0;
  if (!is_f32 && H5Tequal(type, H5T_NATIVE_DOUBLE) <= 0)
    return fox_errf(e, FOX_EFAIL, "%s:%d: %s: h5io_read_finite reads floats or doubles",
                    __FILE__, __LINE__, name);
  FOX_TRY(h5io_read(loc, name, type, data, d0, d1, file, e));
  char full[600];
  const char *nm = abs_name_(loc, name, full, sizeof full);
  size_t w = d1 ? d1 : 1;
  for (size_t k = from * w; k < d0 * w; k++) {
    double v = is_f32 ? (double)((const float *)data)[k] : ((const double *)data)[k];
    if (!isfinite(v) || v < min)
      return bad_value_(file, nm, k, d1, from, v, min, e);
  }
  return 0;
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

/* Opens attribute `name` of loc: missing and unreadable (damaged metadata) are told apart. */
static hid_t attr_open_(hid_t loc, const char *name, const char *what, const char *file,
                        struct fox_err *e) {
  htri_t has = H5Aexists(loc, name);
  if (has == 0) {
    fox_errf(e, FOX_EDATA, "%s: missing attribute '%s'", file, name);
    return -1;
  }
  hid_t a = has > 0 ? H5Aopen(loc, name, H5P_DEFAULT) : -1;
  if (a < 0) {
    char damaged[1200];
    snprintf(damaged, sizeof damaged, "%s", what);
    h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, damaged);
  }
  return a;
}

int h5io_attr_read(hid_t loc, const char *name, hid_t type, void *data, size_t n,
                   const char *file, struct fox_err *e) {
  char what[512];
  snprintf(what, sizeof what, "%s: attribute '%s'", file, name);
  hid_t a = attr_open_(loc, name, what, file, e);
  if (a < 0)
    return e->code;
  hid_t space = H5Aget_space(a);
  hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  if (space >= 0)
    H5Sclose(space);
  hid_t ft = H5Aget_type(a);
  int st = ft < 0 || count < 0 ? h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what)
                               : check_numeric_(ft, type, what, e);
  if (ft >= 0)
    H5Tclose(ft);
  if (st == 0 && count != (hssize_t)n)
    st = fox_errf(e, FOX_EDATA, "%s: expected %zu values, got %lld", what, n, (long long)count);
  if (st == 0 && H5Aread(a, type, data) < 0)
    st = h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
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

/* An attribute or a dataset, for the string reader. */
struct h5obj_ {
  hid_t id;
  int is_attr;
};

static hid_t obj_type_(struct h5obj_ o) {
  return o.is_attr ? H5Aget_type(o.id) : H5Dget_type(o.id);
}
static hid_t obj_space_(struct h5obj_ o) {
  return o.is_attr ? H5Aget_space(o.id) : H5Dget_space(o.id);
}
static herr_t obj_read_(struct h5obj_ o, hid_t mt, void *buf) {
  return o.is_attr ? H5Aread(o.id, mt, buf) : H5Dread(o.id, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
}

/* Copies string i (len bytes) into its slot of buf, refusing one that does not fit. */
static int put_str_(char *buf, size_t i, size_t width, const char *s, size_t len, size_t n,
                    const char *what, struct fox_err *e) {
  if (len >= width) {
    if (n == 1)
      return fox_errf(e, FOX_EDATA, "%s: %zu characters, more than the %zu expected", what, len,
                      width - 1);
    return fox_errf(e, FOX_EDATA, "%s: string %zu has %zu characters, more than the %zu expected",
                    what, i, len, width - 1);
  }
  memcpy(buf + i * width, s, len);
  buf[i * width + len] = '\0';
  text_defuse(buf + i * width); /* a file edited by hand must not drive the user's terminal */
  return 0;
}

/* Fixed-length strings read as stored (no conversion) and unpadded here: HDF5's own conversion
 * to a NULLTERM type of the same size drops the last character of a NULLPAD string (h5py's
 * numpy bytes), and it converts neither way between ASCII and UTF-8. */
static int read_fixed_(struct h5obj_ o, hid_t ft, char *buf, size_t n, size_t width,
                       const char *what, struct fox_err *e) {
  size_t sz = H5Tget_size(ft);
  H5T_str_t pad = H5Tget_strpad(ft);
  if (sz == 0 || pad == H5T_STR_ERROR)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  char *raw = calloc(n ? n : 1, sz);
  mallocCheck(raw, e);
  int rc = n > 0 && obj_read_(o, ft, raw) < 0 ? h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what)
                                               : 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    const char *s = raw + i * sz;
    size_t len = strnlen(s, sz);
    /* NULLPAD (h5py's numpy bytes) pads with NULs to the end: text after a NUL would be
     * dropped without a word. A NULLTERM string ends at its NUL, whatever follows. */
    for (size_t k = len; rc == 0 && pad == H5T_STR_NULLPAD && k < sz; k++)
      if (s[k] != '\0')
        rc = fox_errf(e, FOX_EDATA, "%s: holds a NUL byte at offset %zu inside its text", what,
                      len);
    while (pad == H5T_STR_SPACEPAD && len > 0 && s[len - 1] == ' ')
      len--;
    if (rc == 0)
      rc = put_str_(buf, i, width, s, len, n, what, e);
  }
  free(raw);
  return rc;
}

/* Variable-length strings (h5py's default for a Python str) in their own character set. */
static int read_var_(struct h5obj_ o, hid_t ft, char *buf, size_t n, size_t width,
                     const char *what, struct fox_err *e) {
  char **v = calloc(n ? n : 1, sizeof *v);
  mallocCheck(v, e);
  hid_t mt = H5Tcopy(H5T_C_S1);
  int rc = mt < 0 || H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0 ||
                   (n > 0 && obj_read_(o, mt, v) < 0)
               ? h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what)
               : 0;
  for (size_t i = 0; rc == 0 && i < n; i++)
    rc = put_str_(buf, i, width, v[i] ? v[i] : "", v[i] ? strlen(v[i]) : 0, n, what, e);
  for (size_t i = 0; i < n; i++)
    if (v[i])
      H5free_memory(v[i]);
  if (mt >= 0)
    H5Tclose(mt);
  free(v);
  return rc;
}

/* The n strings of an attribute or dataset into buf (n slots of `width` bytes, NUL-terminated),
 * whatever string form it was written in: fixed NULLTERM, NULLPAD or SPACEPAD, or variable
 * length, ASCII or UTF-8. */
static int read_strings_(struct h5obj_ o, char *buf, size_t n, size_t width, const char *what,
                         struct fox_err *e) {
  hid_t space = obj_space_(o);
  hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  if (space >= 0)
    H5Sclose(space);
  hid_t ft = obj_type_(o);
  if (ft < 0 || count < 0) {
    if (ft >= 0)
      H5Tclose(ft);
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  }
  H5T_class_t cls = H5Tget_class(ft);
  htri_t var = cls == H5T_STRING ? H5Tis_variable_str(ft) : 0;
  int rc = 0;
  if (cls != H5T_STRING)
    rc = fox_errf(e, FOX_EDATA, "%s: holds %s, expected %s", what, class_name_(cls),
                  n == 1 ? "a string" : "strings");
  else if (count != (hssize_t)n && n == 1)
    rc = fox_errf(e, FOX_EDATA, "%s: holds %lld strings, expected one", what, (long long)count);
  else if (count != (hssize_t)n)
    rc = fox_errf(e, FOX_EDATA, "%s: holds %lld strings, expected %zu", what, (long long)count,
                  n);
  else if (var < 0)
    rc = h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  else
    rc = var ? read_var_(o, ft, buf, n, width, what, e)
             : read_fixed_(o, ft, buf, n, width, what, e);
  H5Tclose(ft);
  return rc;
}

int h5io_attr_read_str(hid_t loc, const char *name, char *s, size_t n, const char *file,
                       struct fox_err *e) {
  char what[512];
  snprintf(what, sizeof what, "%s: attribute '%s'", file, name);
  hid_t a = attr_open_(loc, name, what, file, e);
  if (a < 0)
    return e->code;
  int rc = read_strings_((struct h5obj_){a, 1}, s, 1, n, what, e);
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
  size_t g0, g1;
  FOX_TRY(h5io_dims(loc, name, &g0, &g1, file, e));
  char full[600];
  const char *nm = abs_name_(loc, name, full, sizeof full);
  if (g0 != n || g1 != 0) {
    char got[64];
    h5io_shape(g0, g1, got, sizeof got);
    return fox_errf(e, FOX_EDATA, "%s: dataset %s has shape %s, expected [%zu]", file, nm, got,
                    n);
  }
  char what[1200];
  snprintf(what, sizeof what, "%s: dataset %s", file, nm);
  hid_t ds = dataset_open_(loc, name, file, e);
  if (ds < 0)
    return e->code;
  int rc = read_strings_((struct h5obj_){ds, 0}, buf, n, width, what, e);
  H5Dclose(ds);
  return rc;
}

/* Whether `path` names an object: 1, 0, or -1 when HDF5 cannot tell (damaged metadata). Each
 * object on the way is opened, the last one too, so that a damaged header is found here and
 * not taken for absence by a later open; a prefix that is not a group has nothing under it. */
static int lookup_(hid_t loc, const char *path) {
  /* H5Lexists fails on a missing intermediate group, so test each prefix. */
  char buf[512];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + (buf[0] == '/'); ; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char save = *p;
    *p = '\0';
    htri_t has = H5Lexists(loc, buf, H5P_DEFAULT);
    if (has <= 0)
      return has < 0 ? -1 : 0;
    hid_t o = H5Oopen(loc, buf, H5P_DEFAULT);
    if (o < 0)
      return -1;
    H5I_type_t t = H5Iget_type(o);
    H5Oclose(o);
    if (save == '\0')
      return 1;
    if (t != H5I_GROUP)
      return 0;
    *p = save;
  }
}

/* Whether the failure on HDF5's error stack is a Fletcher32 mismatch (the stack is kept). */
static int checksum_failed_(void) {
  struct cause_ c = {0};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, cause_walk_, &c);
  return c.checksum;
}

/* A failure while verifying: reported when strict or when it is a checksum mismatch; other
 * damage is left to the reader that needs the object, which names it more precisely. */
static int verify_fail_(int strict, const char *what, int line, struct fox_err *e) {
  if (strict || checksum_failed_())
    return h5io_fail(e, FOX_EDATA, __FILE__, line, what);
  H5Eclear2(H5E_DEFAULT);
  return 0;
}

/* Reads a filtered dataset through, in slabs of rows of at most 16 MiB: HDF5 checks each
 * chunk's Fletcher32 sum as it reads it. */
static int verify_dataset_(hid_t ds, const char *what, int strict, struct fox_err *e) {
  hid_t dcpl = H5Dget_create_plist(ds), type = H5Dget_type(ds), space = H5Dget_space(ds);
  int rc = 0, bad = dcpl < 0 || type < 0 || space < 0;
  if (bad)
    rc = verify_fail_(strict, what, __LINE__, e);
  hsize_t dims[H5S_MAX_RANK] = {0};
  int rank = bad ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
  size_t elem = bad ? 0 : H5Tget_size(type), row = elem;
  for (int i = 1; i < rank; i++)
    row *= (size_t)dims[i];
  /* Unfiltered (nothing to check), variable-length (foxopt writes none) and scalar datasets
   * are left alone. */
  int check = !bad && rank >= 1 && dims[0] > 0 && row > 0 && H5Pget_nfilters(dcpl) > 0 &&
              H5Tget_class(type) != H5T_VLEN && H5Tis_variable_str(type) == 0;
  hsize_t step = check ? ((size_t)16 << 20) / row : 0;
  step = step ? step : 1;
  void *buf = check ? malloc((size_t)(step < dims[0] ? step : dims[0]) * row) : NULL;
  if (check && !buf)
    rc = fox_errf(e, FOX_EFAIL, "out of memory verifying %s", what);
  for (hsize_t at = 0; check && buf && at < dims[0]; at += step) {
    hsize_t start[H5S_MAX_RANK] = {at}, count[H5S_MAX_RANK];
    for (int i = 0; i < rank; i++)
      count[i] = dims[i];
    count[0] = dims[0] - at < step ? dims[0] - at : step;
    hid_t mem = H5Screate_simple(rank, count, NULL);
    int failed = mem < 0 ||
                 H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
                 H5Dread(ds, type, mem, space, H5P_DEFAULT, buf) < 0;
    /* the cause before any other call: every HDF5 call clears the error stack */
    if (failed)
      rc = verify_fail_(strict, what, __LINE__, e);
    if (mem >= 0)
      H5Sclose(mem);
    if (failed)
      break;
  }
  free(buf);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (type >= 0)
    H5Tclose(type);
  if (space >= 0)
    H5Sclose(space);
  return rc;
}

static int verify_group_(hid_t g, const char *file, int strict, struct fox_err *e) {
  H5G_info_t info;
  if (H5Gget_info(g, &info) < 0)
    return verify_fail_(strict, file, __LINE__, e);
  for (hsize_t i = 0; i < info.nlinks; i++) {
    char name[256], what[1700], full[800];
    if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                           H5P_DEFAULT) < 0) {
      FOX_TRY(verify_fail_(strict, file, __LINE__, e));
      continue;
    }
    snprintf(what, sizeof what, "%s: %s", file, abs_name_(g, name, full, sizeof full));
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) {
      FOX_TRY(verify_fail_(strict, what, __LINE__, e));
      continue;
    }
    H5I_type_t t = H5Iget_type(o);
    int rc = t == H5I_GROUP ? verify_group_(o, file, strict, e)
             : t == H5I_DATASET ? verify_dataset_(o, what, strict, e)
                                : 0;
    H5Oclose(o);
    FOX_TRY(rc);
  }
  return 0;
}

int h5io_verify(const char *path, int strict, struct fox_err *e) {
  hid_t f = -1;
  FOX_TRY(h5io_open_read(path, "a foxopt file", &f, e));
  int rc = verify_group_(f, path, strict, e);
  H5Fclose(f);
  return rc;
}

int h5io_exists(hid_t loc, const char *path) {
  int rc = lookup_(loc, path);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

int h5io_find(hid_t loc, const char *path, const char *file, struct fox_err *e) {
  /* The name first: any HDF5 call between the failure and h5io_fail clears HDF5's message. */
  char what[1200], full[600];
  snprintf(what, sizeof what, "%s: %s", file,
           abs_name_(loc, path, full, sizeof full));
  int rc = lookup_(loc, path);
  return rc >= 0 ? rc : h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
}

static int create_(const char *path, int kind,
                   int (*body)(hid_t f, const void *ctx, struct fox_err *e), const void *ctx,
                   struct fox_err *e) {
  h5io_quiet();
  struct fs_out o;
  FOX_TRY(fs_out_begin(&o, path, kind, e));
  hid_t f = H5Fcreate(o.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) {
    /* The file may exist already: HDF5 creates it before writing its superblock, which a full
     * disk refuses. */
    return fs_out_end(&o, h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path), e);
  }
  int rc = body(f, ctx, e);
  if (H5Fclose(f) < 0 && rc == 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, path);
  if (rc != 0)
    return fs_out_end(&o, fox_err_wrap(e, "writing %s", path), e);
  return fs_out_end(&o, 0, e);
}

int h5io_create_atomic(const char *path, int (*body)(hid_t f, const void *ctx, struct fox_err *e),
                       const void *ctx, struct fox_err *e) {
  return create_(path, FS_OUT_HDF5, body, ctx, e);
}

int h5io_create_own(const char *path, int (*body)(hid_t f, const void *ctx, struct fox_err *e),
                    const void *ctx, struct fox_err *e) {
  return create_(path, FS_OUT_HDF5 | FS_OUT_OWN, body, ctx, e);
}

int h5io_open_read(const char *path, const char *expected, hid_t *f, struct fox_err *e) {
  h5io_quiet();
  FOX_TRY(fs_input_check(path, expected, FOX_EDATA, e));
  FILE *probe = fopen(path, "rb");
  if (!probe)
    return fox_errf(e, FOX_EDATA, "%s: cannot open %s: %s", path, expected, strerror(errno));
  fclose(probe);
  if (H5Fis_hdf5(path) <= 0)
    return fox_errf(e, FOX_EDATA, "%s: not an HDF5 file (expected %s)", path, expected);
  *f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*f < 0)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, path);
  return 0;
}

/* Every image gets its own name: HDF5 takes two open files of one name for the same file. */
static void image_name_(char *out, size_t n) {
  static long counter;
  long k = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  snprintf(out, n, "fox-image-%ld-%ld", (long)getpid(), k);
}

int h5io_image_create(int (*body)(hid_t f, const void *ctx, struct fox_err *e), const void *ctx,
                      void **buf, size_t *len, struct fox_err *e) {
  h5io_quiet();
  *buf = NULL;
  *len = 0;
  char name[64];
  image_name_(name, sizeof name);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fapl_core(fapl, (size_t)1 << 20, 0) < 0) {
    if (fapl >= 0)
      H5Pclose(fapl);
    return h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "an in-memory HDF5 file");
  }
  hid_t f = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (f < 0)
    return h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "an in-memory HDF5 file");
  int rc = body(f, ctx, e);
  ssize_t size = -1;
  if (rc == 0 && (H5Fflush(f, H5F_SCOPE_LOCAL) < 0 || (size = H5Fget_file_image(f, NULL, 0)) <= 0))
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "the image of an in-memory HDF5 file");
  if (rc == 0 && !(*buf = malloc((size_t)size)))
    rc = fox_errf(e, FOX_EFAIL, "out of memory for an HDF5 image of %zd bytes", size);
  if (rc == 0 && H5Fget_file_image(f, *buf, (size_t)size) != size)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "the image of an in-memory HDF5 file");
  H5Fclose(f);
  if (rc != 0) {
    free(*buf);
    *buf = NULL;
    return rc;
  }
  *len = (size_t)size;
  return 0;
}

int h5io_image_open(const void *buf, size_t len, const char *name, hid_t *f, struct fox_err *e) {
  h5io_quiet();
  char id[64];
  image_name_(id, sizeof id);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  /* HDF5 copies the image (no flags: it may not keep the caller's buffer). */
  int ok = fapl >= 0 && H5Pset_fapl_core(fapl, (size_t)1 << 20, 0) >= 0 &&
           H5Pset_file_image(fapl, (void *)buf, len) >= 0;
  *f = ok ? H5Fopen(id, H5F_ACC_RDONLY, fapl) : -1;
  if (fapl >= 0)
    H5Pclose(fapl);
  if (*f < 0)
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, name);
  return 0;
}
