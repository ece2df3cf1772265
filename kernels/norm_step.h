/* What the network sees of a raw feature: clamp((x - mean) / std, -10, 10), 0 where std is 0
 * (FEATURES.md). NaN (bars before warm-up, never used) maps to 0 so that no state is NaN. */
#ifndef FOX_NORM_STEP_H
#define FOX_NORM_STEP_H

#include "fox_hd.h"

#define FOX_NORM_CLAMP 10.0f

FOX_HD static inline float norm_feature(float x, float mean, float std) {
  if (!(std > 0.0f) || x != x)
    return 0.0f;
  float z = (x - mean) / std;
  return z > FOX_NORM_CLAMP ? FOX_NORM_CLAMP : z < -FOX_NORM_CLAMP ? -FOX_NORM_CLAMP : z;
}

/* Element i of the states [n, nfeat]: row i / nfeat's raw column sel[i % nfeat] of [n, ncol],
 * normalised by the selected statistics norm = mean[nfeat] then std[nfeat]. */
FOX_HD static inline float norm_state_at(const float *raw, int ncol, const int *sel,
                                         const float *norm, int nfeat, size_t i) {
  size_t t = i / (size_t)nfeat;
  int j = (int)(i % (size_t)nfeat);
  return norm_feature(raw[t * (size_t)ncol + (size_t)sel[j]], norm[j], norm[nfeat + j]);
}

#endif
