/* The experience group: the per-step record of what an agent did and got. */
#include "env/experience_h5.h"

#include "config/config.h"
#include "env_step.h"
#include "util/h5io.h"

#define EXP_DEFLATE 4

int experience_write(hid_t loc, const char *name, int level, size_t n, const uint8_t *actions,
                     const float *rewards, const int8_t *labels, const float *states,
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
    rc = h5io_write(g, "states", H5T_NATIVE_FLOAT, states, n, FOX_STATE_DIM, EXP_DEFLATE, e);
  H5Gclose(g);
  return rc;
}
