/* The search space (src/search/space.c): what the random sampler draws for every distribution
 * (bounds, grids, and KS / chi-square fits to the exact laws), conditional dqn./ppo. keys, the
 * FILE:LINE rejections of bad spaces, the grid enumeration, and space_format's text. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fox_check.h"
#include "search/sampler.h"
#include "search/space.h"
#include "util/rng.h"

enum { NS = 20000 };
static const uint64_t SEED = 20240611;

static int load_(struct space *sp, int function, int algo, const char *yaml, struct fox_err *e) {
  struct config base;
  config_defaults(&base);
  base.study.function = function;
  base.algo = algo;
  return space_load_text(sp, yaml, "test.yaml", &base, e);
}

/* ---- statistics -------------------------------------------------------------------------- */

static int cmp_double_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Kolmogorov-Smirnov D of u[0..n) (sorted in place) against U(0, 1). */
static double ks_uniform_(double *u, int n) {
  qsort(u, (size_t)n, sizeof *u, cmp_double_);
  double d = 0;
  for (int i = 0; i < n; i++) {
    double f = u[i] < 0 ? 0 : u[i] > 1 ? 1 : u[i];
    double a = f - (double)i / n, b = (double)(i + 1) / n - f;
    d = a > d ? a : d;
    d = b > d ? b : d;
  }
  return d;
}

/* KS at alpha = 0.001 (asymptotic): sqrt(-ln(alpha / 2) / 2) / sqrt(n). */
static double ks_crit_(int n) { return sqrt(-0.5 * log(0.0005)) / sqrt((double)n); }

/* Chi-square of category counts against probabilities. */
static double chi2_(const int *count, const double *prob, int k, int n) {
  double x = 0;
  for (int j = 0; j < k; j++) {
    double want = prob[j] * n;
    x += (count[j] - want) * (count[j] - want) / want;
  }
  return x;
}

/* The chi-square quantile at 1 - 0.001 with df degrees of freedom (Wilson-Hilferty; within 1%
 * of the exact value for df >= 3: df 9 gives 28.06 against 27.88). */
static double chi2_crit_(int df) {
  double h = 2.0 / (9.0 * df), z = 3.090232306167813;
  double c = 1 - h + z * sqrt(h);
  return df * c * c * c;
}

/* The goodness-of-fit statistic of samples v[0..n) of parameter p, and its critical value at
 * alpha = 0.001. Continuous laws by KS on the probability transform; discrete ones by
 * chi-square with `cats` categories (given by hand, not from the code under test). A value
 * outside the domain makes the statistic infinite. */
static double fit_(const struct space_param *p, const double *v, int n, int cats, double *crit) {
  int discrete = p->dist != FOX_DIST_UNIFORM && !(p->dist == FOX_DIST_LOG_UNIFORM && !p->integer);
  if (!discrete) {
    double *u = malloc((size_t)n * sizeof *u);
    for (int i = 0; i < n; i++)
      u[i] = p->dist == FOX_DIST_UNIFORM ? (v[i] - p->lo) / (p->hi - p->lo)
                                         : log(v[i] / p->lo) / log(p->hi / p->lo);
    double d = ks_uniform_(u, n);
    free(u);
    *crit = ks_crit_(n);
    return d;
  }
  int *count = calloc((size_t)cats, sizeof *count);
  double *prob = malloc((size_t)cats * sizeof *prob);
  double stat = 0;
  for (int i = 0; i < n && stat == 0; i++) {
    double k = p->dist == FOX_DIST_CATEGORICAL ? v[i]
               : p->dist == FOX_DIST_Q_UNIFORM ? round((v[i] - p->lo) / p->q)
                                               : v[i] - p->lo;
    if (!(k >= 0 && k < cats && k == floor(k)))
      stat = INFINITY;
    else
      count[(int)k]++;
  }
  for (int j = 0; j < cats; j++) {
    prob[j] = 1.0 / cats;
    if (p->dist == FOX_DIST_LOG_UNIFORM) { /* Optuna: integer k owns [k - 1/2, k + 1/2] in log */
      double k = p->lo + j;
      prob[j] = log((k + 0.5) / (k - 0.5)) / log((p->hi + 0.5) / (p->lo - 0.5));
    }
  }
  if (stat == 0)
    stat = chi2_(count, prob, cats, n);
  *crit = chi2_crit_(cats - 1);
  free(count), free(prob);
  return stat;
}

/* A deliberately wrong sampler, to show that fit_ rejects a biased draw: the top tenth of the
 * transformed range is never drawn, and integer log_uniform forgets Optuna's half-integer
 * widening (round(exp(U(log lo, log hi)))). */
static double mutant_(const struct space_param *p, struct rng *r) {
  double u = 0.9 * rng_uniform(r);
  switch (p->dist) {
  case FOX_DIST_CATEGORICAL: return floor(u * p->n_choices);
  case FOX_DIST_INT_UNIFORM: return p->lo + floor(u * (p->hi - p->lo + 1));
  case FOX_DIST_Q_UNIFORM:
    return p->lo + floor(u * (floor((p->hi - p->lo) / p->q + 1e-9) + 1)) * p->q;
  case FOX_DIST_LOG_UNIFORM:
    if (p->integer)
      return round(exp(log(p->lo) + u / 0.9 * (log(p->hi) - log(p->lo))));
    return exp(log(p->lo) + u * (log(p->hi) - log(p->lo)));
  default: return p->lo + u * (p->hi - p->lo);
  }
}

/* ---- distributions ----------------------------------------------------------------------- */

/* A q grid point as a table shows it: 12 significant digits read back to the same double
 * (0.3, not 0.30000000000000004). */
static int tidy_(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.12g", v);
  return strtod(buf, NULL) == v;
}

static const char dist_yaml[] =
    "parameters:\n"
    "  market.spread: {distribution: uniform, min: 0.0001, max: 0.01}\n"
    "  barrier.pt: {distribution: log_uniform, min: 0.1, max: 10}\n"
    "  barrier.horizon: {distribution: int_uniform, min: 10, max: 19}\n"
    "  market.fee: {distribution: q_uniform, min: 0, max: 0.01, q: 0.001}\n"
    "  barrier.sl: {distribution: q_uniform, min: 0.5, max: 2.2, q: 0.25}\n"
    "  env.episode_bars: {distribution: q_uniform, min: 100, max: 1050, q: 100}\n"
    "  env.num_envs: {distribution: log_uniform, min: 1, max: 30}\n"
    "  dqn.hidden: {values: [[64, 64], [128], [32, 32, 32], [256, 256], [512]]}\n"
    "  dqn.gamma: {value: 0.95}\n"
    "  reward.scale: {min: 1, max: 4}\n";

/* 20,000 proposals of the random sampler: every value in its domain (bounds, q grid, integers,
 * choice indices), and each parameter's law fits the exact one while the mutant's does not.
 * Mutating space_sample_uniform itself (uniform: p->lo + 0.9 * u * (p->hi - p->lo); integer
 * log_uniform: log(p->lo) .. log(p->hi) without the +-0.5) was tried: the fits below fail
 * (D = 0.100 against 0.0138; chi-square 2363 against 58.4). */
static void test_distributions(void) {
  struct space sp;
  struct fox_err e = {0};
  int rc = load_(&sp, 0, FOX_ALGO_DQN, dist_yaml, &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(sp.n == 10, "n = %d", sp.n);
  static const struct {
    int dist, integer, cats;
  } want[10] = {{FOX_DIST_UNIFORM, 0, 0},      {FOX_DIST_LOG_UNIFORM, 0, 0},
                {FOX_DIST_INT_UNIFORM, 1, 10}, {FOX_DIST_Q_UNIFORM, 0, 11},
                {FOX_DIST_Q_UNIFORM, 0, 7},    {FOX_DIST_Q_UNIFORM, 1, 10},
                {FOX_DIST_LOG_UNIFORM, 1, 30}, {FOX_DIST_CATEGORICAL, 0, 5},
                {FOX_DIST_FIXED, 0, 1},        {FOX_DIST_INT_UNIFORM, 1, 4}};
  for (int i = 0; i < sp.n && i < 10; i++) {
    CHECK(sp.p[i].dist == want[i].dist, "%s: dist %d, expected %d", sp.p[i].key, sp.p[i].dist,
          want[i].dist);
    CHECK(sp.p[i].integer == want[i].integer, "%s: integer %d", sp.p[i].key, sp.p[i].integer);
    CHECK(sp.p[i].agent == (strncmp(sp.p[i].key, "dqn.", 4) == 0 ? FOX_ALGO_DQN : -1),
          "%s: agent %d", sp.p[i].key, sp.p[i].agent);
    CHECK(sp.p[i].line == i + 2, "%s: line %d", sp.p[i].key, sp.p[i].line);
  }
  double *col = malloc((size_t)sp.n * NS * sizeof *col);
  struct config base;
  config_defaults(&base);
  for (int t = 0; t < NS; t++) {
    double x[FOX_SPACE_MAX];
    if (sampler_random_ops.propose(&base.study.tpe, &sp, NULL, t, rng_hash2(SEED, (uint64_t)t),
                                   x, &e) != 0) {
      CHECK(0, "propose: %s", e.msg);
      free(col);
      return;
    }
    for (int i = 0; i < sp.n; i++)
      col[(size_t)i * NS + t] = x[i];
  }
  /* The same seed gives the same point. */
  double a[FOX_SPACE_MAX], b[FOX_SPACE_MAX];
  sampler_random_ops.propose(&base.study.tpe, &sp, NULL, 0, 99, a, &e);
  sampler_random_ops.propose(&base.study.tpe, &sp, NULL, 5, 99, b, &e);
  CHECK(memcmp(a, b, (size_t)sp.n * sizeof *a) == 0, "random proposals depend on the seed only");

  for (int i = 0; i < sp.n; i++) {
    const struct space_param *p = &sp.p[i];
    const double *v = col + (size_t)i * NS;
    int bad = 0, first = -1;
    double lo = INFINITY, hi = -INFINITY;
    for (int t = 0; t < NS; t++) {
      int ok;
      if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
        ok = v[t] >= 0 && v[t] < p->n_choices && v[t] == floor(v[t]);
      } else {
        ok = isfinite(v[t]) && v[t] >= p->lo && v[t] <= p->hi;
        if (p->integer)
          ok &= v[t] == floor(v[t]);
        if (p->dist == FOX_DIST_Q_UNIFORM) /* min + k q, tidied: no float noise in its text */
          ok &= fabs(v[t] - (p->lo + round((v[t] - p->lo) / p->q) * p->q)) <= 1e-9 * p->q &&
                tidy_(v[t]);
      }
      if (!ok && first < 0)
        first = t;
      bad += !ok;
      lo = v[t] < lo ? v[t] : lo;
      hi = v[t] > hi ? v[t] : hi;
    }
    CHECK(bad == 0, "%s: %d of %d values outside the domain (first %.17g)", p->key, bad, NS,
          first >= 0 ? v[first] : 0.0);
    if (p->dist == FOX_DIST_FIXED) {
      CHECK(lo == 0 && hi == 0, "%s: fixed index %g .. %g", p->key, lo, hi);
      continue;
    }
    /* Every discrete value occurs; continuous ones reach close to both ends. */
    if (p->dist == FOX_DIST_UNIFORM || (p->dist == FOX_DIST_LOG_UNIFORM && !p->integer)) {
      double span = p->dist == FOX_DIST_UNIFORM ? p->hi - p->lo : log(p->hi / p->lo);
      double l0 = p->dist == FOX_DIST_UNIFORM ? lo - p->lo : log(lo / p->lo);
      double h0 = p->dist == FOX_DIST_UNIFORM ? p->hi - hi : log(p->hi / hi);
      CHECK(l0 < 1e-3 * span && h0 < 1e-3 * span, "%s: range %g .. %g", p->key, lo, hi);
    }
    double crit, stat = fit_(p, v, NS, want[i].cats, &crit);
    CHECK(stat < crit, "%s: statistic %.4g, critical value %.4g", p->key, stat, crit);
    double *m = malloc(NS * sizeof *m);
    struct rng r;
    rng_seed(&r, SEED + (uint64_t)i);
    for (int t = 0; t < NS; t++)
      m[t] = mutant_(p, &r);
    double mcrit, mstat = fit_(p, m, NS, want[i].cats, &mcrit);
    CHECK(mstat > mcrit, "%s: the biased sampler passes (statistic %.4g, critical %.4g)", p->key,
          mstat, mcrit);
    free(m);
  }
  free(col);
}

/* The top point of a q_uniform grid, min + k q in floating point, can land an ulp above max:
 * 0.05 + 94 * 0.01 = 0.9900000000000001. It must stay within [min, max], and the config (whose
 * limit for market.cash_reserve is 0.99) must accept it. */
static void test_q_uniform_top(void) {
  struct space sp;
  struct fox_err e = {0};
  const char *yaml = "parameters:\n"
                     "  market.cash_reserve: {distribution: q_uniform, min: 0.05, max: 0.99, "
                     "q: 0.01}\n";
  int rc = load_(&sp, 0, FOX_ALGO_DQN, yaml, &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  long long size = 0;
  CHECK(space_grid_size(&sp, &size, &e) == 0 && size == 95, "grid size %lld: %s", size, e.msg);
  double x[FOX_SPACE_MAX], low, high, step;
  int lg;
  space_grid_point(&sp, 94, x);
  CHECK(x[0] <= 0.99, "top grid point %.17g above max 0.99", x[0]);
  space_numeric(&sp.p[0], &low, &high, &step, &lg);
  CHECK(high <= 0.99, "space_numeric high %.17g above max 0.99", high);
  CHECK(space_snap(&sp.p[0], 0.99) <= 0.99, "snap(0.99) = %.17g", space_snap(&sp.p[0], 0.99));
  struct config cfg;
  config_defaults(&cfg);
  struct fox_err ae = {0};
  rc = space_apply(&sp, x, &cfg, &ae);
  CHECK(rc == 0, "space_apply of the top grid point: %s", ae.msg);
  CHECK(rc != 0 || fabs(cfg.market.cash_reserve - 0.99) < 1e-12, "cash_reserve %.17g",
        cfg.market.cash_reserve);

  /* space.h: k = 0 .. floor((max - min) / q). With max = 0.99999999995, (max - min) / q =
   * 4.9999999995: five steps, top point 0.9; a sixth point (1.0) lies above max. */
  yaml = "parameters:\n"
         "  dqn.gamma: {distribution: q_uniform, min: 0.5, max: 0.99999999995, q: 0.1}\n";
  rc = load_(&sp, 0, FOX_ALGO_DQN, yaml, &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(space_grid_size(&sp, &size, &e) == 0 && size == 5, "grid size %lld, expected 5", size);
  space_numeric(&sp.p[0], &low, &high, &step, &lg);
  CHECK(high <= 0.99999999995, "space_numeric high %.17g above max 0.99999999995", high);
}

/* ---- conditional keys -------------------------------------------------------------------- */

static const char cond_yaml[] = "parameters:\n"
                                "  train.algo: {values: [dqn, ppo]}\n"
                                "  dqn.lr: {distribution: log_uniform, min: 1e-3, max: 1e-2}\n"
                                "  ppo.clip: {distribution: uniform, min: 0.3, max: 0.4}\n"
                                "  dqn.hidden: {values: [[64, 64], [256]]}\n"
                                "  env.num_envs: {values: [16, 32]}\n";

static void test_conditional(void) {
  struct space sp;
  struct fox_err e = {0};
  int rc = load_(&sp, 0, FOX_ALGO_DQN, cond_yaml, &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(sp.algo == 0, "algo index %d", sp.algo);
  CHECK(sp.p[1].agent == FOX_ALGO_DQN && sp.p[2].agent == FOX_ALGO_PPO &&
            sp.p[3].agent == FOX_ALGO_DQN && sp.p[4].agent == -1 && sp.p[0].agent == -1,
        "agents %d %d %d %d %d", sp.p[0].agent, sp.p[1].agent, sp.p[2].agent, sp.p[3].agent,
        sp.p[4].agent);
  struct config base, def;
  config_defaults(&base);
  config_defaults(&def);
  int n_agent[2] = {0, 0}, bad = 0, bad_apply = 0;
  enum { N = 2000 };
  for (int t = 0; t < N; t++) {
    double x[FOX_SPACE_MAX];
    sampler_random_ops.propose(&base.study.tpe, &sp, NULL, t, rng_hash2(SEED, (uint64_t)t), x,
                               &e);
    int a = space_agent(&sp, x);
    bad += !(x[0] == 0 || x[0] == 1) || a != (int)x[0];
    n_agent[a == FOX_ALGO_PPO]++;
    int dqn = a == FOX_ALGO_DQN;
    /* Active: a value in its range; inactive: NaN. */
    bad += dqn != !isnan(x[1]) || dqn != !isnan(x[3]) || dqn == !isnan(x[2]) || isnan(x[4]);
    bad += dqn && !(x[1] >= 1e-3 && x[1] <= 1e-2 && (x[3] == 0 || x[3] == 1));
    bad += !dqn && !(x[2] >= 0.3 && x[2] <= 0.4);
    bad += space_active(&sp, 1, x) != dqn || space_active(&sp, 2, x) == dqn ||
           !space_active(&sp, 0, x) || !space_active(&sp, 4, x);
    /* space_apply sets the active keys and leaves the others at the base's values. */
    struct config c = def;
    struct fox_err ae = {0};
    if (space_apply(&sp, x, &c, &ae) != 0) {
      bad_apply++;
      continue;
    }
    int ok = c.algo == a && c.num_envs == (x[4] == 0 ? 16 : 32);
    if (dqn) {
      int w = x[3] == 0 ? 64 : 256, nh = x[3] == 0 ? 2 : 1;
      ok &= c.dqn.lr == x[1] && c.ppo.clip == def.ppo.clip && c.dqn.n_hidden == nh &&
            c.dqn.hidden[0] == w && (nh == 1 || c.dqn.hidden[1] == 64);
    } else {
      ok &= c.ppo.clip == x[2] && c.dqn.lr == def.dqn.lr && c.dqn.n_hidden == def.dqn.n_hidden &&
            c.dqn.hidden[0] == def.dqn.hidden[0];
    }
    bad_apply += !ok;
  }
  CHECK(bad == 0, "%d of %d proposals with wrong activity or values", bad, N);
  CHECK(bad_apply == 0, "%d of %d configs wrong after space_apply", bad_apply, N);
  /* Both agents, about half each (binomial sd 22). */
  CHECK(n_agent[0] > 850 && n_agent[1] > 850, "dqn %d, ppo %d", n_agent[0], n_agent[1]);

  /* space_mask blanks the other agent's keys. */
  double x[FOX_SPACE_MAX] = {1, 0.005, 0.35, 1, 0};
  space_mask(&sp, x);
  CHECK(isnan(x[1]) && isnan(x[3]) && x[2] == 0.35 && x[0] == 1 && x[4] == 0,
        "mask ppo: %g %g %g %g %g", x[0], x[1], x[2], x[3], x[4]);

  /* Agent fixed by the config: dqn keys are always active, none is the algo parameter. */
  rc = load_(&sp, 0, FOX_ALGO_PPO,
             "parameters:\n  ppo.clip: {distribution: uniform, min: 0.1, max: 0.2}\n", &e);
  CHECK(rc == 0 && sp.algo == -1 && sp.base_algo == FOX_ALGO_PPO, "%s", e.msg);
  double y[FOX_SPACE_MAX] = {0.15};
  CHECK(space_agent(&sp, y) == FOX_ALGO_PPO && space_active(&sp, 0, y), "fixed ppo");
}

/* ---- rejections -------------------------------------------------------------------------- */

struct bad_case {
  const char *what;
  int function, algo;
  const char *yaml;
  const char *where; /* "test.yaml:LINE" */
  const char *key;   /* must appear in the message */
};

#define HEAD_ "parameters:\n  market.spread: {distribution: uniform, min: 0.001, max: 0.01}\n"
static const struct bad_case bad_cases_[] = {
    {"min == max", 0, FOX_ALGO_DQN, HEAD_ "  dqn.lr: {distribution: uniform, min: 0.1, max: 0.1}\n",
     "test.yaml:3:", "dqn.lr"},
    {"min > max", 0, FOX_ALGO_DQN,
     HEAD_ "  barrier.pt: {distribution: log_uniform, min: 5, max: 1}\n", "test.yaml:3:",
     "barrier.pt"},
    {"log_uniform min 0", 0, FOX_ALGO_DQN,
     HEAD_ "  market.fee: {distribution: log_uniform, min: 0, max: 0.1}\n", "test.yaml:3:",
     "market.fee"},
    {"log_uniform min < 0", 2, FOX_ALGO_DQN,
     "parameters:\n  x0: {distribution: uniform, min: 0, max: 1}\n"
     "  x1: {distribution: log_uniform, min: -1, max: 1}\n",
     "test.yaml:3:", "x1"},
    {"unknown key", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.learning_rate: {distribution: uniform, min: 0.1, max: 0.2}\n", "test.yaml:3:",
     "dqn.learning_rate"},
    {"unknown variable of a function", 1, FOX_ALGO_DQN,
     "parameters:\n  x0: {distribution: uniform, min: -5, max: 10}\n"
     "  x2: {distribution: uniform, min: 0, max: 15}\n",
     "test.yaml:3:", "x2"},
    {"empty values", 0, FOX_ALGO_DQN, HEAD_ "  dqn.hidden: {values: []}\n", "test.yaml:3:",
     "dqn.hidden"},
    {"unknown distribution", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr: {distribution: normal, min: 0.1, max: 0.2}\n", "test.yaml:3:", "dqn.lr"},
    {"unknown field", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr:\n    distribution: uniform\n    min: 0.1\n    mx: 0.2\n", "test.yaml:6:",
     "dqn.lr"},
    {"q_uniform without q", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr: {distribution: q_uniform, min: 0.1, max: 0.2}\n", "test.yaml:3:", "dqn.lr"},
    {"q on uniform", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr: {distribution: uniform, min: 0.1, max: 0.2, q: 0.1}\n", "test.yaml:3:",
     "dqn.lr"},
    {"q wider than the range", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr: {distribution: q_uniform, min: 0.1, max: 0.2, q: 0.5}\n", "test.yaml:3:",
     "dqn.lr"},
    {"bool key with uniform", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.double: {distribution: uniform, min: 0, max: 1}\n", "test.yaml:3:",
     "dqn.double"},
    {"choice key with int_uniform", 0, FOX_ALGO_DQN,
     HEAD_ "  output.experience: {distribution: int_uniform, min: 0, max: 2}\n", "test.yaml:3:",
     "output.experience"},
    {"integer key, fractional min", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.batch_size: {distribution: uniform, min: 1.5, max: 64}\n", "test.yaml:3:",
     "dqn.batch_size"},
    {"max out of the key's range", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.gamma: {distribution: uniform, min: 0.9, max: 1.5}\n", "test.yaml:3:",
     "dqn.gamma"},
    {"min out of the key's range", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr: {distribution: uniform, min: 0, max: 0.1}\n", "test.yaml:3:", "dqn.lr"},
    {"a listed value out of range (its own line)", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.gamma:\n    values:\n      - 0.9\n      - 1.5\n", "test.yaml:6:", "dqn.gamma"},
    {"a listed value the key rejects", 0, FOX_ALGO_DQN,
     HEAD_ "  train.algo: {values: [dqn, sac]}\n", "test.yaml:3:", "train.algo"},
    {"a value listed twice", 0, FOX_ALGO_DQN, HEAD_ "  dqn.hidden: {values: [[64], [64]]}\n",
     "test.yaml:3:", "dqn.hidden"},
    {"dqn key, config fixes ppo", 0, FOX_ALGO_PPO,
     HEAD_ "  ppo.clip: {distribution: uniform, min: 0.1, max: 0.2}\n"
           "  dqn.lr: {distribution: log_uniform, min: 1e-5, max: 1e-3}\n",
     "test.yaml:4:", "dqn.lr"},
    {"dqn key, train.algo fixed to ppo", 0, FOX_ALGO_DQN,
     HEAD_ "  train.algo: {value: ppo}\n"
           "  dqn.lr: {distribution: log_uniform, min: 1e-5, max: 1e-3}\n",
     "test.yaml:4:", "dqn.lr"},
    {"ppo key, train.algo only dqn", 0, FOX_ALGO_PPO,
     HEAD_ "  train.algo: {values: [dqn]}\n"
           "  ppo.clip: {distribution: uniform, min: 0.1, max: 0.2}\n",
     "test.yaml:4:", "ppo.clip"},
    {"duplicate key", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr: {distribution: log_uniform, min: 1e-5, max: 1e-3}\n"
           "  dqn.gamma: {value: 0.9}\n"
           "  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}\n",
     "test.yaml:5:", "dqn.lr"},
    {"train.seed", 0, FOX_ALGO_DQN, HEAD_ "  train.seed: {values: [1, 2]}\n", "test.yaml:3:",
     "train.seed"},
    {"study.* key", 0, FOX_ALGO_DQN, HEAD_ "  study.seed: {values: [1, 2]}\n", "test.yaml:3:",
     "study.seed"},
    {"train.epochs (the scheduler's budget)", 0, FOX_ALGO_DQN,
     HEAD_ "  train.epochs: {values: [1, 3]}\n", "test.yaml:3:", "max_epochs"},
    {"data.path", 0, FOX_ALGO_DQN, HEAD_ "  data.path: {values: [a.h5, b.h5]}\n",
     "test.yaml:3:", "data.path"},
    {"a field given twice", 0, FOX_ALGO_DQN,
     HEAD_ "  dqn.lr: {distribution: uniform, min: 0.1, max: 0.2, max: 0.5}\n", "test.yaml:3:",
     "key 'max' given twice"},
    {"no distribution", 0, FOX_ALGO_DQN, HEAD_ "  dqn.lr: {min: 0.1}\n", "test.yaml:3:",
     "dqn.lr"},
    {"not a mapping", 0, FOX_ALGO_DQN, HEAD_ "  dqn.lr: 0.1\n", "test.yaml:3:", "dqn.lr"},
    {"a function variable missing", 1, FOX_ALGO_DQN,
     "parameters:\n  x0: {distribution: uniform, min: -5, max: 10}\n", "test.yaml", "x1"},
};
#undef HEAD_

static void test_rejections(void) {
  for (size_t c = 0; c < sizeof bad_cases_ / sizeof *bad_cases_; c++) {
    const struct bad_case *b = &bad_cases_[c];
    struct space sp;
    struct fox_err e = {0};
    int rc = load_(&sp, b->function, b->algo, b->yaml, &e);
    CHECK(rc == FOX_EUSAGE && e.code == FOX_EUSAGE, "%s: rc %d, code %d (%s)", b->what, rc,
          e.code, e.msg);
    CHECK(strncmp(e.msg, b->where, strlen(b->where)) == 0, "%s: message '%s' does not start "
                                                           "with '%s'", b->what, e.msg, b->where);
    CHECK(strstr(e.msg, b->key) != NULL, "%s: message '%s' does not name %s", b->what, e.msg,
          b->key);
  }
  /* Each of the above becomes acceptable when the bad part is mended. */
  struct space sp;
  struct fox_err e = {0};
  const char *good = "parameters:\n"
                     "  market.spread: {distribution: uniform, min: 0.001, max: 0.01}\n"
                     "  dqn.gamma: {distribution: uniform, min: 0.9, max: 1}\n"
                     "  train.algo: {values: [dqn, ppo]}\n"
                     "  ppo.clip: {distribution: q_uniform, min: 0.1, max: 0.2, q: 0.05}\n"
                     "  dqn.double: {values: [true, false]}\n"
                     "  market.fee: {distribution: log_uniform, min: 1e-5, max: 0.1}\n";
  CHECK(load_(&sp, 0, FOX_ALGO_DQN, good, &e) == 0 && sp.n == 6, "mended space: %s", e.msg);
}

/* ---- grid -------------------------------------------------------------------------------- */

static int same_point_(const double *a, const double *b, int n) {
  for (int i = 0; i < n; i++)
    if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
      return 0;
  return 1;
}

static void test_grid(void) {
  struct space sp;
  struct fox_err e = {0};
  const char *yaml = "parameters:\n"
                     "  train.algo: {values: [dqn, ppo]}\n"
                     "  dqn.batch_size: {distribution: q_uniform, min: 32, max: 128, q: 32}\n"
                     "  ppo.clip: {distribution: q_uniform, min: 0.1, max: 0.35, q: 0.1}\n"
                     "  dqn.hidden: {values: [[64, 64], [256]]}\n"
                     "  ppo.epochs: {distribution: int_uniform, min: 1, max: 3}\n"
                     "  env.num_envs: {values: [32, 64]}\n"
                     "  dqn.gamma: {value: 0.9}\n";
  int rc = load_(&sp, 0, FOX_ALGO_DQN, yaml, &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  /* By hand: dqn 4 x 2 x 2 x 1 = 16 points, ppo 3 x 3 x 2 = 18. */
  enum { TOTAL = 34 };
  double want[TOTAL][7];
  int k = 0;
  for (int b = 0; b < 4; b++)
    for (int h = 0; h < 2; h++)
      for (int n = 0; n < 2; n++, k++) {
        double row[7] = {0, 32 + 32.0 * b, NAN, h, NAN, n, 0};
        memcpy(want[k], row, sizeof row);
      }
  for (int c = 0; c < 3; c++)
    for (int ep = 0; ep < 3; ep++)
      for (int n = 0; n < 2; n++, k++) {
        static const double clip[3] = {0.1, 0.2, 0.3}; /* tidy: not 0.30000000000000004 */
        double row[7] = {1, NAN, clip[c], NAN, 1.0 + ep, n, NAN};
        memcpy(want[k], row, sizeof row);
      }
  long long size = -1;
  CHECK(space_grid_size(&sp, &size, &e) == 0 && size == TOTAL, "grid size %lld (%s)", size, e.msg);
  double got[TOTAL][FOX_SPACE_MAX];
  for (int g = 0; g < TOTAL; g++) {
    space_grid_point(&sp, g, got[g]);
    CHECK(same_point_(got[g], want[g], 7), "point %d: (%g %g %g %g %g %g %g)", g, got[g][0],
          got[g][1], got[g][2], got[g][3], got[g][4], got[g][5], got[g][6]);
    double m[FOX_SPACE_MAX];
    memcpy(m, got[g], sizeof m);
    space_mask(&sp, m);
    CHECK(same_point_(m, got[g], 7), "point %d has an active NaN or an inactive value", g);
    /* The grid sampler's trial g is point g, and the grid wraps at its size. */
    double x[FOX_SPACE_MAX];
    CHECK(sampler_grid_ops.propose(NULL, &sp, NULL, g + TOTAL, 7, x, &e) == 0 &&
              same_point_(x, got[g], 7),
          "grid sampler trial %d", g + TOTAL);
  }
  int dup = 0;
  for (int a = 0; a < TOTAL; a++)
    for (int b = a + 1; b < TOTAL; b++)
      dup += same_point_(got[a], got[b], 7);
  CHECK(dup == 0, "%d duplicate grid points", dup);

  /* Without the condition: the plain product, last parameter fastest. */
  rc = load_(&sp, 3, FOX_ALGO_DQN,
             "parameters:\n  x0: {values: [-1, 0, 1]}\n  x1: {value: 2}\n"
             "  x2: {values: [0, 1, 2, 3]}\n"
             "  x3: {distribution: q_uniform, min: 0.5, max: 1.6, q: 0.5}\n"
             "  x4: {distribution: int_uniform, min: 3, max: 4}\n",
             &e);
  CHECK(rc == 0, "%s", e.msg);
  CHECK(space_grid_size(&sp, &size, &e) == 0 && size == 3 * 1 * 4 * 3 * 2, "size %lld", size);
  int g = 0, bad = 0;
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 4; c++)
      for (int d = 0; d < 3; d++)
        for (int f = 0; f < 2; f++, g++) {
          double x[FOX_SPACE_MAX], w[5] = {a, 0, c, 0.5 + 0.5 * d, 3 + f};
          space_grid_point(&sp, g, x);
          bad += !same_point_(x, w, 5);
        }
  CHECK(bad == 0, "%d of 72 plain grid points out of order", bad);

  /* A continuous parameter has no grid: FOX_EUSAGE naming it. */
  rc = load_(&sp, 1, FOX_ALGO_DQN,
             "parameters:\n  x0: {values: [1, 2]}\n"
             "  x1: {distribution: uniform, min: 0, max: 15}\n",
             &e);
  struct fox_err ge = {0};
  CHECK(rc == 0 && space_grid_size(&sp, &size, &ge) == FOX_EUSAGE && strstr(ge.msg, "x1") &&
            strstr(ge.msg, "line 3"),
        "continuous grid: '%s'", ge.msg);
}

/* ---- text -------------------------------------------------------------------------------- */

/* The fewest significant digits (at least 6, so %g keeps integers below 1e6 plain) that read
 * back to v, worked out here independently. */
static void shortest_(double v, char *buf, size_t n) {
  int p = 1;
  for (; p < 17; p++) {
    snprintf(buf, n, "%.*g", p, v);
    if (strtod(buf, NULL) == v)
      break;
  }
  snprintf(buf, n, "%.*g", p < 6 ? 6 : p, v);
}

static void test_format(void) {
  struct space sp;
  struct fox_err e = {0};
  const char *yaml = "parameters:\n"
                     "  market.spread: {distribution: uniform, min: 0, max: 0.5}\n"
                     "  dqn.batch_size: {distribution: log_uniform, min: 1, max: 100000}\n"
                     "  dqn.hidden: {values: [[64, 64], [128,256], [32]]}\n"
                     "  ppo.hidden:\n"
                     "    values:\n"
                     "      - [64,64]\n"
                     "      - 512\n"
                     "  dqn.lr: {values: [1e-4, 3.0e-4]}\n"
                     "  train.algo: {values: [dqn, ppo]}\n"
                     "  env.num_envs: {value: 48}\n";
  int rc = load_(&sp, 0, FOX_ALGO_DQN, yaml, &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  char buf[FOX_CHOICE_LEN];
  static const struct {
    double v;
    const char *text;
  } cont[] = {{0.1, "0.1"},
              {0.1 + 0.2, "0.30000000000000004"},
              {1.0 / 3, "0.3333333333333333"},
              {2.5e-4, "0.00025"},
              {1e-5, "1e-05"},
              {0.25, "0.25"},
              {123456.0, "123456"},
              {1234567.0, "1234567"},
              {-0.5, "-0.5"},
              {0.123456789, "0.123456789"}};
  for (size_t i = 0; i < sizeof cont / sizeof *cont; i++) {
    space_format(&sp.p[0], cont[i].v, buf, sizeof buf);
    CHECK(strcmp(buf, cont[i].text) == 0, "format(%.17g) = '%s', expected '%s'", cont[i].v, buf,
          cont[i].text);
  }
  /* Random doubles over many magnitudes: exact round trip with the fewest digits. */
  struct rng r;
  rng_seed(&r, SEED);
  int bad = 0;
  for (int i = 0; i < 20000; i++) {
    double v = exp(rng_uniform(&r) * 60 - 30) * (rng_uniform(&r) < 0.5 ? -1 : 1);
    char want[64];
    space_format(&sp.p[0], v, buf, sizeof buf);
    shortest_(v, want, sizeof want);
    bad += strtod(buf, NULL) != v || strcmp(buf, want) != 0;
  }
  CHECK(bad == 0, "%d of 20000 random doubles not in their shortest exact text", bad);
  /* space_format searches the precision by bisection (issue 28): the edges where reading back
   * is not monotone in the digits (powers of two, whose rounding interval is narrower below),
   * their neighbours, subnormals, the largest double, short decimals, a sampler's [0, 1). */
  bad = 0;
  int cases = 0;
  for (int k = -1074; k <= 1023; k++)
    for (int d = -2; d <= 2; d++) {
      double p2 = ldexp(1.0, k), v = p2;
      for (int j = 0; j < (d < 0 ? -d : d); j++)
        v = nextafter(v, d < 0 ? 0.0 : INFINITY);
      for (int sign = 0; sign < 2 && isfinite(v); sign++, cases++) {
        char want[64];
        space_format(&sp.p[0], sign ? -v : v, buf, sizeof buf);
        shortest_(sign ? -v : v, want, sizeof want);
        bad += strcmp(buf, want) != 0;
      }
    }
  double edge[] = {DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324, 0.0, -0.0, 1e23, 9.999999999999999e22,
                   5e-324 * 3, 0.3, 2.675, 1e-7, 123456.7};
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++, cases++) {
    char want[64];
    space_format(&sp.p[0], edge[i], buf, sizeof buf);
    shortest_(edge[i], want, sizeof want);
    bad += strcmp(buf, want) != 0;
  }
  for (int i = 0; i < 200000; i++, cases++) {
    double v = i % 2 ? rng_uniform(&r) : floor(rng_uniform(&r) * 1e6) / 1e3, want_v = v;
    char want[64];
    space_format(&sp.p[0], v, buf, sizeof buf);
    shortest_(want_v, want, sizeof want);
    bad += strcmp(buf, want) != 0;
  }
  CHECK(bad == 0, "%d of %d edge and sampled doubles not in their shortest exact text", bad,
        cases);
  /* Integers, choices (lists as "[64, 64]" however the YAML spelled them), inactive. */
  space_format(&sp.p[1], 4096, buf, sizeof buf);
  CHECK(strcmp(buf, "4096") == 0, "integer: '%s'", buf);
  space_format(&sp.p[1], 100000, buf, sizeof buf);
  CHECK(strcmp(buf, "100000") == 0, "integer: '%s'", buf);
  static const char *const dh[] = {"[64, 64]", "[128, 256]", "[32]"};
  for (int j = 0; j < 3; j++) {
    space_format(&sp.p[2], j, buf, sizeof buf);
    CHECK(strcmp(buf, dh[j]) == 0, "dqn.hidden choice %d: '%s', expected '%s'", j, buf, dh[j]);
  }
  space_format(&sp.p[3], 0, buf, sizeof buf);
  CHECK(strcmp(buf, "[64, 64]") == 0, "ppo.hidden choice 0: '%s'", buf);
  space_format(&sp.p[3], 1, buf, sizeof buf);
  CHECK(strcmp(buf, "512") == 0, "ppo.hidden choice 1: '%s'", buf);
  space_format(&sp.p[4], 1, buf, sizeof buf);
  CHECK(strcmp(buf, "3.0e-4") == 0, "dqn.lr choice 1: '%s' (as written)", buf);
  space_format(&sp.p[5], 1, buf, sizeof buf);
  CHECK(strcmp(buf, "ppo") == 0, "train.algo choice 1: '%s'", buf);
  space_format(&sp.p[6], 0, buf, sizeof buf);
  CHECK(strcmp(buf, "48") == 0, "fixed: '%s'", buf);
  buf[0] = 'x';
  space_format(&sp.p[0], NAN, buf, sizeof buf);
  CHECK(buf[0] == '\0', "inactive: '%s'", buf);
  /* Numbers of choices: the value when it is one, the index otherwise. */
  CHECK(space_number(&sp.p[4], 1) == 3e-4, "space_number lr %g", space_number(&sp.p[4], 1));
  CHECK(space_number(&sp.p[2], 2) == 2, "space_number of a list choice is its index");
  CHECK(space_number(&sp.p[0], 0.125) == 0.125, "space_number numeric");
  /* A formatted point applied to a config gives back the same doubles and lists. */
  double x[FOX_SPACE_MAX] = {0.1 + 0.2, 777, 1, NAN, 1, 0, 0};
  struct config c;
  config_defaults(&c);
  CHECK(space_apply(&sp, x, &c, &e) == 0, "%s", e.msg);
  CHECK(c.market.spread == 0.1 + 0.2 && c.dqn.batch_size == 777 && c.dqn.n_hidden == 2 &&
            c.dqn.hidden[0] == 128 && c.dqn.hidden[1] == 256 && c.ppo.n_hidden == 2 &&
            c.ppo.hidden[0] == 64 && c.ppo.hidden[1] == 64 && c.dqn.lr == 3e-4 &&
            c.algo == FOX_ALGO_DQN && c.num_envs == 48,
        "applied config");
}

int main(void) {
  test_distributions();
  test_q_uniform_top();
  test_conditional();
  test_rejections();
  test_grid();
  test_format();
  return fox_check_done("test_space");
}
