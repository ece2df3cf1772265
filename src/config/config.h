/* The run configuration (DESIGN.md s8) as one struct with its defaults, and the key table that
 * `--set a.b=v` (and, later, the YAML loader) writes through: every key has a type and a range,
 * and every rejection names the key and what was expected. */
#ifndef FOX_CONFIG_H
#define FOX_CONFIG_H

#include "env_step.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { FOX_EXP_NONE = 0, FOX_EXP_SUMMARY = 1, FOX_EXP_FULL = 2 };

struct config {
  struct market_params market; /* market.*, barrier.*, reward.* */
  int experience;              /* output.experience */
};

void config_defaults(struct config *c);
/* Applies "key=value"; `only` limits the accepted key prefixes (NULL-terminated list of e.g.
 * "market.", or NULL for all). FOX_EUSAGE on an unknown key, a bad value or one out of range. */
int config_set(struct config *c, const char *kv, const char *const *only, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
