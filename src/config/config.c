/* Config keys: one table row per key, so defaults, types, ranges and messages live together. */
#include "config/config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum ptype_ { P_DOUBLE, P_INT, P_BOOL, P_EXPERIENCE };

struct param_ {
  const char *key;
  enum ptype_ type;
  size_t offset;
  double lo, hi;    /* inclusive bounds */
  int lo_open;      /* 1: the lower bound itself is excluded */
  const char *what; /* the expected value, for messages */
};

#define M_(f) offsetof(struct config, market) + offsetof(struct market_params, f)
static const struct param_ params_[] = {
    {"market.initial_capital", P_DOUBLE, M_(initial_capital), 0, 1e15, 1, "a number > 0"},
    {"market.spread", P_DOUBLE, M_(spread), 0, 0.5, 0, "a number in [0, 0.5]"},
    {"market.fee", P_DOUBLE, M_(fee), 0, 0.5, 0, "a number in [0, 0.5]"},
    {"market.cash_reserve", P_DOUBLE, M_(cash_reserve), 0, 0.99, 0, "a number in [0, 0.99]"},
    {"barrier.pt", P_DOUBLE, M_(pt), 0, 1e6, 1, "a number > 0"},
    {"barrier.sl", P_DOUBLE, M_(sl), 0, 1e6, 1, "a number > 0"},
    {"barrier.horizon", P_INT, M_(horizon), 1, 1e7, 0, "an integer >= 1 (bars)"},
    {"barrier.enforce", P_BOOL, M_(enforce), 0, 1, 0, "true or false"},
    {"barrier.bonus", P_DOUBLE, M_(bonus), 0, 1e6, 0, "a number >= 0"},
    {"reward.normalize", P_BOOL, M_(reward_normalize), 0, 1, 0, "true or false"},
    {"reward.scale", P_DOUBLE, M_(reward_scale), 0, 1e9, 1, "a number > 0"},
    {"output.experience", P_EXPERIENCE, offsetof(struct config, experience), 0, 2, 0,
     "none, summary or full"},
};
#undef M_

void config_defaults(struct config *c) {
  memset(c, 0, sizeof *c);
  c->market = (struct market_params){.initial_capital = 10000,
                                     .spread = 0.0005,
                                     .fee = 0.0004,
                                     .cash_reserve = 0.05,
                                     .pt = 2.0,
                                     .sl = 2.0,
                                     .bonus = 0.0,
                                     .horizon = 60,
                                     .enforce = 1,
                                     .reward_normalize = 0,
                                     .reward_scale = 1.0};
  c->experience = FOX_EXP_SUMMARY;
}

static int parse_bool_(const char *v, int *out) {
  if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
    *out = 1;
  else if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "no") ||
           !strcasecmp(v, "off"))
    *out = 0;
  else
    return -1;
  return 0;
}

static int allowed_(const char *key, const char *const *only) {
  if (!only)
    return 1;
  for (; *only; only++)
    if (strncmp(key, *only, strlen(*only)) == 0)
      return 1;
  return 0;
}

int config_set(struct config *c, const char *kv, const char *const *only, struct fox_err *e) {
  const char *eq = strchr(kv, '=');
  if (!eq || eq == kv)
    return fox_errf(e, FOX_EUSAGE, "--set '%s': expected key=value", kv);
  char key[128];
  size_t klen = (size_t)(eq - kv);
  if (klen >= sizeof key)
    return fox_errf(e, FOX_EUSAGE, "--set: key too long");
  memcpy(key, kv, klen);
  key[klen] = '\0';
  const char *val = eq + 1;
  const struct param_ *p = NULL;
  for (size_t i = 0; i < sizeof params_ / sizeof *params_; i++)
    if (strcmp(params_[i].key, key) == 0)
      p = &params_[i];
  if (!p || !allowed_(key, only)) {
    char known[1024] = "";
    for (size_t i = 0; i < sizeof params_ / sizeof *params_; i++)
      if (allowed_(params_[i].key, only)) {
        strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, params_[i].key, sizeof known - strlen(known) - 1);
      }
    return fox_errf(e, FOX_EUSAGE, "--set: unknown key '%s' (known here: %s)", key, known);
  }
  char *dst = (char *)c + p->offset;
  if (p->type == P_BOOL) {
    int b;
    if (parse_bool_(val, &b) != 0)
      return fox_errf(e, FOX_EUSAGE, "--set %s='%s': expected %s", key, val, p->what);
    *(int *)dst = b;
    return 0;
  }
  if (p->type == P_EXPERIENCE) {
    static const char *const names[3] = {"none", "summary", "full"};
    for (int i = 0; i < 3; i++)
      if (strcmp(val, names[i]) == 0) {
        *(int *)dst = i;
        return 0;
      }
    return fox_errf(e, FOX_EUSAGE, "--set %s='%s': expected %s", key, val, p->what);
  }
  char *end;
  errno = 0;
  double x = strtod(val, &end);
  if (errno || end == val || *end != '\0' || !isfinite(x) ||
      (p->type == P_INT && x != floor(x)))
    return fox_errf(e, FOX_EUSAGE, "--set %s='%s': expected %s", key, val, p->what);
  if (x < p->lo || x > p->hi || (p->lo_open && x == p->lo))
    return fox_errf(e, FOX_EUSAGE, "--set %s=%s: out of range, expected %s", key, val, p->what);
  if (p->type == P_INT)
    *(int *)dst = (int)x;
  else
    *(double *)dst = x;
  return 0;
}
