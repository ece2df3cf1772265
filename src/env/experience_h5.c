/* The experience group: the per-step record of what an agent did and got. */
#include "env/experience_h5.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "data/features.h"
#include "env_step.h"
#include "util/h5io.h"

#define EXP_DEFLATE 4

int experience_write_features(hid_t loc, const struct config *cfg, struct fox_err *e) {
  char (*names)[64] = calloc(FOX_FEATURES_MAX, sizeof *names);
  mallocCheck(names, e);
  int n = config_feature_names(cfg, names, FOX_FEATURES_MAX);
  for (int i = 0; n == 0 && i < FOX_NFEAT; i++)
    snprintf(names[i], 64, "%s", feature_names[i]);
  int rc = h5io_write_strs(loc, "feature_names", names[0], (size_t)(n ? n : FOX_NFEAT), 64, e);
  free(names);
  return rc;
}

int experience_write(hid_t loc, const char *name, int level, size_t n, const uint8_t *actions,
                     const float *rewards, const int8_t *labels, const float *states, int dim,
                     struct fox_err *e) {
  if (level == FOX_EXP_NONE)
    return 0;
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, name);
  int rc = h5io_write(g, "actions", H5T_NATIVE_UINT8, actions, n, 0, EXP_DEFLATE, e);
  if (rc == 0)
    rc = h5io_write(g, "rewards", H5T_NATIVE_FLOAT, rewards, n, 0, EXP_DEFLATE, e);
  if (rc == 0)
    rc = h5io_write(g, "barrier_labels", H5T_NATIVE_INT8, labels, n, 0, EXP_DEFLATE, e);
  if (rc == 0 && level == FOX_EXP_FULL)
    rc = h5io_write(g, "states", H5T_NATIVE_FLOAT, states, n, (size_t)dim, EXP_DEFLATE, e);
  H5Gclose(g);
  return rc;
}

/* An integer series of n values in [0, hi] (actions or barrier labels). */
static int check_codes_(hid_t loc, const char *path, size_t n, int hi, const char *file,
                        struct fox_err *e) {
  int *v = malloc((n ? n : 1) * sizeof *v);
  mallocCheck(v, e);
  int rc = h5io_read(loc, path, H5T_NATIVE_INT, v, n, 0, file, e);
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (v[i] < 0 || v[i] > hi)
      rc = fox_errf(e, FOX_EDATA, "%s: %s[%zu] = %d, expected 0 to %d", file, path, i, v[i], hi);
  free(v);
  return rc;
}

int experience_check(hid_t loc, const char *name, size_t n, int *level, const char *file,
                     struct fox_err *e) {
  *level = FOX_EXP_NONE;
  int has = h5io_find(loc, name, file, e);
  if (has <= 0)
    return has;
  char path[4][256];
  static const char *const parts[4] = {"actions", "barrier_labels", "rewards", "states"};
  for (int i = 0; i < 4; i++)
    snprintf(path[i], sizeof path[i], "%s/%s", name, parts[i]);
  FOX_TRY(check_codes_(loc, path[0], n, 2, file, e));
  FOX_TRY(check_codes_(loc, path[1], n, FOX_LABEL_TIME, file, e));
  int full = h5io_find(loc, path[3], file, e);
  if (full < 0)
    return full;
  /* A state is the file's features (feature_names beside the group; a file from before user
   * features has none: the 51) and the 3 portfolio ones. */
  size_t dim = 1;
  if (full) {
    int named = h5io_find(loc, "feature_names", file, e);
    size_t k = FOX_NFEAT, d1;
    if (named < 0)
      return named;
    if (named)
      FOX_TRY(h5io_dims(loc, "feature_names", &k, &d1, file, e));
    dim = k + FOX_NPORTFOLIO;
  }
  float *x = malloc((n ? n : 1) * dim * sizeof *x);
  mallocCheck(x, e);
  int rc = h5io_read_finite(loc, path[2], H5T_NATIVE_FLOAT, x, n, 0, 0, -INFINITY, file, e);
  if (rc == 0 && full)
    rc = h5io_read_finite(loc, path[3], H5T_NATIVE_FLOAT, x, n, dim, 0, -INFINITY, file, e);
  free(x);
  if (rc == 0)
    *level = full ? FOX_EXP_FULL : FOX_EXP_SUMMARY;
  return rc;
}
