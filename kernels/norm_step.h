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

#endif
