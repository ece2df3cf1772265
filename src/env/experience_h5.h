/* Experience outputs in HDF5 (DESIGN.md s4): actions u8, rewards f32, barrier_labels i8 and,
 * at level full, states f32 [n, features + 3]; chunked and compressed. Shared by the backtest file and
 * the rank files. */
#ifndef FOX_EXPERIENCE_H5_H
#define FOX_EXPERIENCE_H5_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Writes group `name` under `loc` unless level is FOX_EXP_NONE; states [n, dim] may be NULL
 * below full. */
int experience_write(hid_t loc, const char *name, int level, size_t n, const uint8_t *actions,
                     const float *rewards, const int8_t *labels, const float *states, int dim,
                     struct fox_err *e);
struct config;
/* loc/feature_names: the state's features in order (cfg's data.features, spelt out when it is
 * the default 51), for readers of the file other than foxopt, and for experience_check. */
int experience_write_features(hid_t loc, const struct config *cfg, struct fox_err *e);
/* Reads group `name` under `loc` back as experience_write leaves it for n bars: actions 0-2,
 * barrier labels 0-3, finite rewards and (full) states [n, features + 3]. *level is the level it holds
 * (FOX_EXP_NONE without the group). FOX_EDATA naming `file`, the dataset and the first bad
 * index. */
int experience_check(hid_t loc, const char *name, size_t n, int *level, const char *file,
                     struct fox_err *e);

#endif
