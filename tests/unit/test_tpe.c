/* TPE: the truncated-normal numerics and the Parzen estimator against Optuna 5.1 / SciPy
 * figures, the split of the history, determinism and validity of proposals, constant liar,
 * conditional spaces, and TPE against random search on the test functions.
 *   test_tpe [--slow]   (--slow: 50 seeds instead of 20 against random search) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fox_check.h"
#include "study/objective.h"
#include "search/parzen.h"
#include "search/sampler.h"
#include "search/space.h"
#include "search/tpe.h"
#include "search/truncnorm.h"
#include "study_spaces.h"

/* Reference values below were printed by SciPy 1.17.1 (scipy.special.log_ndtr, ndtri_exp) and
 * Optuna 5.1.0 (optuna.samplers._tpe._truncnorm, _ParzenEstimator with prior_weight 1,
 * consider_magic_clip True, consider_endpoints False, default_weights) from .venv. */

static void test_truncnorm(void) {
  static const double ndtr[][2] = {{-40.0, -804.6084420137539}, {-30.0, -454.32124395634327},
                                   {-20.5, -214.06672896326387}, {-5.0, -15.064998393988727},
                                   {0.0, -0.6931471805599453},   {3.0, -0.0013508099647481925},
                                   {10.0, -7.61985302416047e-24}, {40.0, -0.0}};
  for (size_t i = 0; i < sizeof ndtr / sizeof *ndtr; i++)
    CHECK_NEAR(truncnorm_log_ndtr(ndtr[i][0]), ndtr[i][1], 0, 1e-13);
  static const double mass[][3] = {{-50.0, -45.0, -1017.2260942419524},
                                   {45.0, 50.0, -1017.2260942419524},
                                   {-1.0, 2.0, -0.20016629432446262},
                                   {30.0, 31.0, -454.3212439563432},
                                   {-3.0, -2.999, -12.325193603978821}};
  for (size_t i = 0; i < sizeof mass / sizeof *mass; i++)
    CHECK_NEAR(truncnorm_log_mass(mass[i][0], mass[i][1]), mass[i][2], 0, 1e-10);
  CHECK(truncnorm_log_mass(1.0, 1.0) == -INFINITY, "empty interval");
  static const double ndtri[][2] = {{-1e-20, 9.262340089798409}, {-1e-05, 4.264891910308922},
                                    {-0.5, 0.27028802073873587}, {-5.0, -2.4709386372615887},
                                    {-800.0, -39.88469483825668}};
  for (size_t i = 0; i < sizeof ndtri / sizeof *ndtri; i++)
    CHECK_NEAR(truncnorm_ndtri_exp(ndtri[i][0]), ndtri[i][1], 0, 1e-8);
  static const double ppf[][4] = {{0.5, -1.0, 1.0, 0.0},
                                  {0.3, 30.0, 35.0, 30.011873653870605},
                                  {0.9, -40.0, -38.0, -38.00277062814434},
                                  {0.999, -2.0, 60.0, 3.097060509598474}};
  for (size_t i = 0; i < sizeof ppf / sizeof *ppf; i++)
    CHECK_NEAR(truncnorm_ppf(ppf[i][0], ppf[i][1], ppf[i][2]), ppf[i][3], 1e-9, 1e-8);
  /* Far tails and extreme quantiles stay finite and inside the interval. */
  const double qs[] = {0.0, 1e-300, 1e-12, 0.5, 1 - 1e-12, 1 - 0x1p-53};
  const double ab[][2] = {{30, 35}, {-35, -30}, {-1e3, 1e3}, {60, 60.001}, {-0.001, 1e-9}};
  for (size_t i = 0; i < sizeof ab / sizeof *ab; i++)
    for (size_t j = 0; j < sizeof qs / sizeof *qs; j++) {
      double v = truncnorm_ppf(qs[j], ab[i][0], ab[i][1]);
      CHECK(isfinite(v) && v >= ab[i][0] && v <= ab[i][1], "ppf(%g, %g, %g) = %g", qs[j],
            ab[i][0], ab[i][1], v);
    }
}

/* The estimator of one case against Optuna's mixture: kernel centres and bandwidths (the
 * prior last), weights, log densities at three points. */
static void check_parzen(const char *name, const struct parzen_dim *dim, int D, const double *obs,
                         int n_obs, const double *mu, const double *sig, const double *pts,
                         const double *logpdf) {
  struct parzen pe;
  struct fox_err e = {0};
  CHECK(parzen_build(&pe, dim, D, obs, n_obs, 1.0, &e) == 0, "%s: %s", name, e.msg);
  int K = n_obs + 1;
  for (int d = 0, j = 0; d < D; d++) {
    if (dim[d].n_choices)
      continue;
    for (int k = 0; k < K; k++, j++) {
      CHECK_NEAR(pe.mu[k * D + d], mu[j], 1e-12, 1e-12);
      CHECK_NEAR(pe.sig[k * D + d], sig[j], 1e-12, 1e-12);
    }
  }
  for (int k = 0; k < K; k++) /* equal weights in these cases */
    CHECK_NEAR(pe.cum_w[k], (k + 1.0) / K, 1e-15, 1e-12);
  double out[3];
  CHECK(parzen_log_pdf(&pe, pts, 3, out, &e) == 0, "%s", e.msg);
  for (int i = 0; i < 3; i++)
    CHECK_NEAR(out[i], logpdf[i], 1e-10, 1e-10);
  parzen_free(&pe);
}

static void test_parzen(void) {
  /* Continuous [0, 10], observations 2, 3, 7: by hand, neighbour distances with the bounds
   * are 2, 4, 4, the outermost use their inner neighbour (1 and 4), then the magic clip
   * 10 / min(100, 1 + 4) = 2 lifts 1 to 2; the prior sits at 5 with bandwidth 10. */
  struct parzen_dim cont = {0, 0, 10, 0, 0};
  check_parzen("continuous", &cont, 1, (double[]){2, 3, 7}, 3, (double[]){2, 3, 7, 5},
               (double[]){2, 4, 4, 10}, (double[]){0.0, 2.5, 9.9},
               (double[]){-2.386447068201824, -2.0062675762796136, -2.865637137070327});
  /* Integers 0..20 (bounds widened to [-0.5, 20.5]), a repeated observation. */
  struct parzen_dim ints = {0, 0, 20, 1, 0};
  check_parzen("integer", &ints, 1, (double[]){7, 7, 12}, 3, (double[]){7, 7, 12, 10},
               (double[]){4.2, 5, 5, 21}, (double[]){0, 7, 20},
               (double[]){-3.630393453913296, -2.6442323210475704, -4.02423371391145});
  struct parzen_dim lg = {0, 1e-6, 1, 0, 1};
  check_parzen("log", &lg, 1, (double[]){1e-3, 1e-2}, 2,
               (double[]){-6.907755278982137, -4.605170185988091, -6.907755278982137},
               (double[]){3.4538776394910684, 3.4538776394910684, 13.815510557964274},
               (double[]){1e-6, 1e-3, 0.5},
               (double[]){-3.5453873874328385, -2.307178930679802, -2.9353515169247153});
  struct parzen_dim lgi = {0, 1, 1000, 1, 1};
  check_parzen("log integer", &lgi, 1, (double[]){3, 50, 900}, 3,
               (double[]){1.0986122886681098, 3.912023005428146, 6.802394763324311,
                          3.1075539867319213},
               (double[]){2.8134107167600364, 2.890371757896165, 2.890371757896165,
                          7.601402334583733},
               (double[]){1, 3, 1000},
               (double[]){-2.2496024383665647, -3.2188955872945377, -8.954852083483267});
  struct parzen_dim q = {0, 0, 1, 0.25, 0};
  check_parzen("q", &q, 1, (double[]){0.25, 0.75}, 2, (double[]){0.25, 0.75, 0.5},
               (double[]){0.5, 0.5, 1.25}, (double[]){0, 0.5, 1},
               (double[]){-1.7530987556780993, -1.4778328786638968, -1.7530987556780993});
  /* Product kernels over a continuous, a categorical and an integer dimension. */
  struct parzen_dim mixed[3] = {{0, -5, 10, 0, 0}, {4, 0, 0, 0, 0}, {0, 0, 20, 1, 0}};
  check_parzen("mixed", mixed, 3, (double[]){1, 1, 7, -2, 1, 0, 8, 3, 20}, 3,
               (double[]){1, -2, 8, 2.5, 7, 0, 20, 10}, (double[]){7, 3, 7, 15, 13, 7, 13, 21},
               (double[]){1.5, 1, 7, -5, 0, 3, 10, 3, 20},
               (double[]){-6.323204512923722, -7.450945967293196, -6.732133069043114});
  struct parzen pe;
  struct fox_err e = {0};
  CHECK(parzen_build(&pe, mixed, 3, (double[]){1, 1, 7, -2, 1, 0, 8, 3, 20}, 3, 1.0, &e) == 0,
        "%s", e.msg);
  static const double cat[4][4] = {{0.125, 0.625, 0.125, 0.125}, {0.125, 0.625, 0.125, 0.125},
                                   {0.125, 0.125, 0.125, 0.625}, {0.25, 0.25, 0.25, 0.25}};
  for (int k = 0; k < 4; k++)
    for (int c = 0; c < 4; c++)
      CHECK_NEAR(pe.cat[pe.cat_off[1] * 4 + k * 4 + c], cat[k][c], 1e-15, 1e-12);
  parzen_free(&pe);
  /* No observation: the prior alone. */
  struct parzen_dim empty[2] = {{0, 0, 10, 0, 0}, {3, 0, 0, 0, 0}};
  CHECK(parzen_build(&pe, empty, 2, NULL, 0, 1.0, &e) == 0, "%s", e.msg);
  double lp;
  CHECK(parzen_log_pdf(&pe, (double[]){5, 2}, 1, &lp, &e) == 0, "%s", e.msg);
  CHECK_NEAR(lp, -3.360219581171206, 1e-12, 1e-12);
  parzen_free(&pe);
  /* An observation outside the bounds is refused, naming it. */
  CHECK(parzen_build(&pe, &cont, 1, (double[]){11}, 1, 1.0, &e) == FOX_EDATA &&
            strstr(e.msg, "outside"),
        "got '%s'", e.msg);

  double w[30];
  parzen_default_weights(30, w);
  static const double ramp[5] = {0.03333333333333333, 0.275, 0.5166666666666667,
                                 0.7583333333333333, 1.0};
  for (int i = 0; i < 30; i++)
    CHECK_NEAR(w[i], i < 5 ? ramp[i] : 1.0, 1e-15, 1e-14);
  parzen_default_weights(26, w);
  CHECK_NEAR(w[0], 1.0 / 26, 1e-15, 0);
}

/* The split: complete trials by loss (ties in trial order), then pruned ones by (-step, loss;
 * NaN worst); failed ones and NaN losses never good; running ones in the rest only under
 * constant liar; n as Optuna counts it. */
static void test_split(void) {
  struct tpe_config tc;
  struct config base;
  config_defaults(&base);
  tc = base.study.tpe;
  struct fox_err e = {0};
  double x0 = 0;
  struct seen_trial h[31];
  signed char side[31];
  int counted;
  /* 31 complete trials, loss i % 10, gamma 0.05: ceil(1.55) = 2 good ones, of the four tied at
   * 0 the first two. */
  for (int i = 0; i < 31; i++)
    h[i] = (struct seen_trial){&x0, FOX_SEEN_COMPLETE, (double)(i % 10), 0};
  tc.gamma = 0.05;
  CHECK(tpe_split(&tc, h, 31, side, &counted, &e) == 0 && counted == 31, "%s", e.msg);
  for (int i = 0; i < 31; i++)
    CHECK(side[i] == (i == 0 || i == 10 ? FOX_TPE_BELOW : FOX_TPE_ABOVE), "trial %d side %d", i,
          side[i]);
  /* 300 trials: 30 by gamma, capped at 25. */
  struct seen_trial big[300];
  signed char big_side[300];
  for (int i = 0; i < 300; i++)
    big[i] = (struct seen_trial){&x0, FOX_SEEN_COMPLETE, (double)i, 0};
  tc.gamma = 0.1;
  tpe_split(&tc, big, 300, big_side, &counted, &e);
  int nb = 0;
  for (int i = 0; i < 300; i++)
    nb += big_side[i] == FOX_TPE_BELOW;
  CHECK(nb == 25 && big_side[24] == FOX_TPE_BELOW && big_side[25] == FOX_TPE_ABOVE, "%d good",
        nb);
  /* Mixed states, gamma 0.5: n = 7 (the running trial is not counted), 4 good: the two
   * complete ones, then pruned C (step 5, loss 2) and B (step 5, loss 9) before D (step 5,
   * NaN) and A (step 3, loss 0.5). */
  static const struct {
    int state;
    double loss;
    int step;
    int want;
  } mix[] = {{FOX_SEEN_COMPLETE, 3, 0, FOX_TPE_BELOW}, {FOX_SEEN_PRUNED, 0.5, 3, FOX_TPE_ABOVE},
             {FOX_SEEN_PRUNED, 9, 5, FOX_TPE_BELOW},   {FOX_SEEN_PRUNED, 2, 5, FOX_TPE_BELOW},
             {FOX_SEEN_PRUNED, NAN, 5, FOX_TPE_ABOVE}, {FOX_SEEN_FAILED, NAN, 0, FOX_TPE_ABOVE},
             {FOX_SEEN_RUNNING, NAN, 0, FOX_TPE_ABOVE}, {FOX_SEEN_COMPLETE, 4, 0, FOX_TPE_BELOW}};
  int nm = (int)(sizeof mix / sizeof *mix);
  for (int i = 0; i < nm; i++)
    h[i] = (struct seen_trial){&x0, mix[i].state, mix[i].loss, mix[i].step};
  tc.gamma = 0.5;
  CHECK(tpe_split(&tc, h, nm, side, &counted, &e) == 0 && counted == 7, "counted %d", counted);
  for (int i = 0; i < nm; i++)
    CHECK(side[i] == mix[i].want, "mixed trial %d: side %d, want %d", i, side[i], mix[i].want);
  tc.constant_liar = 0;
  CHECK(tpe_split(&tc, h, nm, side, &counted, &e) == 0 && side[6] == FOX_TPE_UNUSED,
        "running without constant liar: side %d", side[6]);
  /* Only failures (or NaN losses): none of them is a model of a good region. */
  for (int i = 0; i < 12; i++)
    h[i] = (struct seen_trial){&x0, i % 2 ? FOX_SEEN_FAILED : FOX_SEEN_COMPLETE, NAN, 0};
  CHECK(tpe_split(&tc, h, 12, side, &counted, &e) == 0 && counted == 12, "counted %d", counted);
  for (int i = 0; i < 12; i++)
    CHECK(side[i] == FOX_TPE_ABOVE, "failed trial %d side %d", i, side[i]);
}

/* Two objectives: the fronts that fit, then the cut front by hypervolume (hand-worked), then
 * the infeasible by violation; running trials in the rest, not counted; weights_below = 1. */
static void test_split_multi(void) {
  struct config base;
  config_defaults(&base);
  struct tpe_config tc = base.study.tpe;
  struct fox_err e = {0};
  double x0 = 0.5;
  static const double v[13][2] = {{1, 4}, {4, 1}, {2, 5}, {5, 2}, {3, 4.5}, {6, 6}, {6, 7},
                                  {7, 6}, {8, 8}, {9, 9}, {0, 0}, {NAN, 1}, {0, 0}};
  struct seen_trial h[13];
  for (int i = 0; i < 13; i++) {
    h[i] = (struct seen_trial){&x0, FOX_SEEN_COMPLETE, v[i][0], 0, 0, 2, {v[i][0], v[i][1]}, 0};
  }
  h[10].violation = 1.0; /* infeasible: (0, 0) would dominate everything */
  h[11].state = FOX_SEEN_COMPLETE; /* NaN objective: a failure, counted, never good */
  h[12].state = FOX_SEEN_RUNNING;
  signed char side[13];
  int counted;
  /* 12 counted, gamma 0.25: 3 good. Front 0 = trials 0, 1; front 1 = 2, 3, 4 with reference
   * (5.5, 5.5): contributions 1.75, 1.75, 2.5: trial 4. */
  tc.gamma = 0.25;
  tc.constant_liar = 1;
  CHECK(tpe_split(&tc, h, 13, side, &counted, &e) == 0 && counted == 12, "%s %d", e.msg,
        counted);
  for (int i = 0; i < 13; i++)
    CHECK(side[i] == (i == 0 || i == 1 || i == 4 ? FOX_TPE_BELOW : FOX_TPE_ABOVE),
          "multi trial %d side %d", i, side[i]);
  /* gamma 1/3: 4 good: then (5, 2) adds (5.5 - 5)(4.5 - 2) = 1.25 > (2, 5)'s (3 - 2) 0.5. */
  tc.gamma = 1.0 / 3;
  CHECK(tpe_split(&tc, h, 13, side, &counted, &e) == 0, "%s", e.msg);
  for (int i = 0; i < 13; i++)
    CHECK(side[i] == (i == 0 || i == 1 || i == 3 || i == 4 ? FOX_TPE_BELOW : FOX_TPE_ABOVE),
          "multi 1/3 trial %d side %d", i, side[i]);
  /* gamma 1: 12 good wanted (no cap of 25 either), 10 feasible, the infeasible one; the
   * failure never. */
  tc.gamma = 1.0;
  CHECK(tpe_split(&tc, h, 13, side, &counted, &e) == 0, "%s", e.msg);
  for (int i = 0; i < 13; i++)
    CHECK(side[i] == (i <= 10 ? FOX_TPE_BELOW : FOX_TPE_ABOVE), "multi 1 trial %d side %d", i,
          side[i]);
  struct seen_trial big[60];
  signed char big_side[60];
  for (int i = 0; i < 60; i++)
    big[i] = (struct seen_trial){&x0, FOX_SEEN_COMPLETE, i, 0, 0, 2, {i, 60 - i}, 0};
  tc.gamma = 0.5;
  CHECK(tpe_split(&tc, big, 60, big_side, &counted, &e) == 0, "%s", e.msg);
  int nb = 0;
  for (int i = 0; i < 60; i++)
    nb += big_side[i] == FOX_TPE_BELOW;
  CHECK(nb == 30, "several objectives: ceil(gamma n) = 30 good, no cap of 25; got %d", nb);
}

static int cmp_double_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int load_space(struct space *sp, int function, const char *yaml) {
  struct config base;
  config_defaults(&base);
  base.study.function = function;
  struct fox_err e = {0};
  int rc = space_load_text(sp, yaml, "test", &base, &e);
  CHECK(rc == 0, "space: %s", e.msg);
  return rc;
}

static const struct test_function *cur_tf_;

static double test_function_loss(const struct space *sp, const double *x) {
  double args[8];
  for (int i = 0; i < sp->n; i++) /* keys are the function's variables x0, x1, ... */
    args[atoi(sp->p[i].key + 1)] = space_number(&sp->p[i], x[i]);
  return cur_tf_->f(args);
}

/* DQN at lr 1e-3, batch 128 and the second hidden choice is best (0); PPO never beats 0.5. */
static double agent_loss(const struct space *sp, const double *x) {
  double v = 0.1 * fabs(x[1] - 4); /* barrier.horizon */
  if (space_agent(sp, x) == FOX_ALGO_DQN) {
    double l = log10(x[2]) + 3;
    return v + l * l + fabs(x[3] - 128) / 256 + (x[4] == 1 ? 0 : 0.3);
  }
  double l = log10(x[5]) + 4;
  return v + 0.5 + l * l + fabs(x[6] - 0.2) + fabs(x[7] - 10) / 30;
}

static const char agent_yaml[] =
    "parameters:\n"
    "  train.algo: {values: [dqn, ppo]}\n"
    "  barrier.horizon: {distribution: int_uniform, min: 1, max: 8}\n"
    "  dqn.lr: {distribution: log_uniform, min: 1e-5, max: 1e-1}\n"
    "  dqn.batch_size: {distribution: q_uniform, min: 32, max: 256, q: 32}\n"
    "  dqn.hidden: {values: [[64, 64], [128, 128], [256]]}\n"
    "  ppo.lr: {distribution: log_uniform, min: 1e-5, max: 1e-1}\n"
    "  ppo.clip: {distribution: q_uniform, min: 0.1, max: 0.4, q: 0.05}\n"
    "  ppo.epochs: {distribution: log_uniform, min: 1, max: 30}\n"
    "  output.experience: {value: none}\n";

/* A proposal lies in the space: active values in bounds, on their grid, integers where the
 * key is one, choice indices valid, inactive ones NaN. */
static int valid_point(const struct space *sp, const double *x) {
  int ok = 1;
  for (int i = 0; i < sp->n; i++) {
    const struct space_param *p = &sp->p[i];
    double v = x[i];
    if (!space_active(sp, i, x)) {
      ok &= isnan(v);
    } else if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
      ok &= v >= 0 && v < p->n_choices && v == floor(v);
    } else {
      double low, high, step;
      int lg;
      space_numeric(p, &low, &high, &step, &lg);
      ok &= v >= low && v <= high && space_snap(p, v) == v && (!p->integer || v == floor(v));
    }
  }
  return ok;
}

/* A study of `trials` trials in rounds of `round` (a proposal sees the earlier ones of its round
 * as RUNNING, as the study driver shows them), trial t from the stream hash(seed, t); the best
 * loss. */
static double run_study(const struct sampler_ops *ops, const struct tpe_config *tc,
                        const struct space *sp, double (*loss)(const struct space *, const double *),
                        uint64_t seed, int trials, int round, double *xs, struct seen_trial *hist,
                        int *bad) {
  double best = INFINITY;
  for (int r0 = 0; r0 < trials; r0 += round) {
    int r1 = r0 + round < trials ? r0 + round : trials;
    for (int t = r0; t < r1; t++) {
      double *x = xs + (size_t)t * sp->n, again[FOX_SPACE_MAX];
      struct fox_err e = {0};
      uint64_t s = rng_hash2(seed, (uint64_t)t);
      if (ops->propose(tc, sp, hist, t, s, x, &e) != 0) {
        CHECK(0, "propose: %s", e.msg);
        return NAN;
      }
      /* The same inputs give the same proposal, bit for bit. */
      ops->propose(tc, sp, hist, t, s, again, &e);
      *bad += memcmp(x, again, (size_t)sp->n * sizeof *x) != 0 || !valid_point(sp, x);
      hist[t] = (struct seen_trial){x, FOX_SEEN_RUNNING, NAN, 0};
    }
    for (int t = r0; t < r1; t++) {
      hist[t].state = FOX_SEEN_COMPLETE;
      hist[t].loss = loss(sp, hist[t].x);
      best = hist[t].loss < best ? hist[t].loss : best;
    }
  }
  return best;
}

/* Two objectives (ZDT1 in two variables: the front is x1 = 0): proposals are a pure function of
 * (history, seed), and past the startup trials TPE presses x1 towards 0 (random: median 0.5). */
static void test_multi_proposals(void) {
  struct space sp;
  if (load_space(&sp, 1, "parameters:\n  x0: {distribution: uniform, min: 0, max: 1}\n"
                         "  x1: {distribution: uniform, min: 0, max: 1}\n") != 0)
    return;
  struct config base;
  config_defaults(&base);
  struct tpe_config tc = base.study.tpe;
  enum { T = 80 };
  double xs[T][FOX_SPACE_MAX], again[FOX_SPACE_MAX], late[T];
  struct seen_trial hist[T];
  struct fox_err e = {0};
  int same = 1, nl = 0;
  for (int t = 0; t < T; t++) {
    CHECK(sampler_tpe_ops.propose(&tc, &sp, hist, t, 100 + t, xs[t], &e) == 0, "%s", e.msg);
    sampler_tpe_ops.propose(&tc, &sp, hist, t, 100 + t, again, &e);
    same &= memcmp(xs[t], again, sizeof again[0] * sp.n) == 0;
    double g = 1 + 9 * xs[t][1];
    hist[t] = (struct seen_trial){xs[t], FOX_SEEN_COMPLETE, xs[t][0], 1, 0, 2,
                                  {xs[t][0], g * (1 - sqrt(xs[t][0] / g))}, 0};
    if (t >= T / 2)
      late[nl++] = xs[t][1];
  }
  CHECK(same, "two objectives: a proposal is not a pure function of (history, seed)");
  qsort(late, (size_t)nl, sizeof late[0], cmp_double_);
  printf("  two objectives (ZDT1, 2 variables): median x1 of the last %d trials %.3f\n", nl,
         late[nl / 2]);
  CHECK(late[nl / 2] < 0.25, "two objectives: median x1 of the late trials %g, want < 0.25",
        late[nl / 2]);
}

static void test_proposals(void) {
  struct space sp;
  if (load_space(&sp, 0, agent_yaml) != 0)
    return;
  struct config base;
  config_defaults(&base);
  enum { T = 80 };
  double *xs = malloc(T * FOX_SPACE_MAX * sizeof *xs);
  struct seen_trial hist[T];
  for (int mv = 0; mv < 2; mv++) {
    struct tpe_config tc = base.study.tpe;
    tc.multivariate = mv;
    int bad = 0;
    run_study(&sampler_tpe_ops, &tc, &sp, agent_loss, 3, T, 4, xs, hist, &bad);
    CHECK(bad == 0, "multivariate %d: %d proposals not reproducible or not valid", mv, bad);
    int dqn_late = 0;
    for (int t = T / 2; t < T; t++)
      dqn_late += space_agent(&sp, hist[t].x) == FOX_ALGO_DQN;
    printf("  conditional space, multivariate %d: the better agent in %d of the last %d trials\n",
           mv, dqn_late, T / 2);
    CHECK(dqn_late > T / 4, "multivariate %d: TPE chose the better agent %d of %d times", mv,
          dqn_late, T / 2);
    /* A different seed, a different proposal. */
    double a[FOX_SPACE_MAX], b[FOX_SPACE_MAX];
    struct fox_err e = {0};
    sampler_tpe_ops.propose(&tc, &sp, hist, T, 1, a, &e);
    sampler_tpe_ops.propose(&tc, &sp, hist, T, 2, b, &e);
    CHECK(memcmp(a, b, sizeof a[0] * sp.n) != 0, "seeds 1 and 2 gave the same point");

    /* Each group's estimators see exactly the trials in which the group is active. */
    signed char side[T];
    int counted;
    tpe_split(&tc, hist, T, side, &counted, &e);
    int dqn[3] = {2, 3, 4}, always[2] = {0, 1};
    double rows[T * 3];
    for (int want = FOX_TPE_ABOVE; want <= FOX_TPE_BELOW; want++) {
      int n_dqn = 0, n_side = 0;
      for (int t = 0; t < T; t++) {
        n_side += side[t] == want;
        n_dqn += side[t] == want && space_agent(&sp, hist[t].x) == FOX_ALGO_DQN;
      }
      int got = tpe_gather(hist, T, side, want, dqn, 3, rows);
      CHECK(got == n_dqn && n_dqn > 0, "side %d: %d dqn rows, %d dqn trials", want, got, n_dqn);
      int nan = 0;
      for (int j = 0; j < got * 3; j++)
        nan += isnan(rows[j]);
      CHECK(nan == 0, "side %d: %d NaN in the dqn group's observations", want, nan);
      CHECK(tpe_gather(hist, T, side, want, always, 2, rows) == n_side, "always-active rows");
    }
  }
  /* A history value outside the space (a changed parameters: section) is named. */
  struct tpe_config tc = base.study.tpe;
  xs[2] = 0.5; /* trial 0's dqn.lr, or NaN made active */
  xs[0] = 0;
  struct fox_err e = {0};
  double x[FOX_SPACE_MAX];
  CHECK(sampler_tpe_ops.propose(&tc, &sp, hist, T, 1, x, &e) == FOX_EDATA &&
            strstr(e.msg, "trial 0: parameters.dqn.lr"),
        "got '%s'", e.msg);
  free(xs);
}

/* Constant liar: proposals of one round, each seeing the earlier ones as RUNNING, are distinct
 * and spread wider than without it. */
static void test_constant_liar(void) {
  struct space sp;
  if (load_space(&sp, 1, study_space_yaml[0]) != 0)
    return;
  cur_tf_ = objective_function(1);
  struct config base;
  config_defaults(&base);
  enum { H = 30, B = 4, ROUNDS = 20 };
  double xs[(H + B) * 2];
  struct seen_trial hist[H + B];
  int bad = 0;
  run_study(&sampler_tpe_ops, &base.study.tpe, &sp, test_function_loss, 11, H, 1, xs, hist, &bad);
  double spread[2] = {0, 0};
  for (int cl = 0; cl < 2; cl++) {
    struct tpe_config tc = base.study.tpe;
    tc.constant_liar = cl;
    for (int r = 0; r < ROUNDS; r++) {
      for (int b = 0; b < B; b++) {
        struct fox_err e = {0};
        double *x = xs + (H + b) * 2;
        sampler_tpe_ops.propose(&tc, &sp, hist, H + b, rng_hash2(100 + r, (uint64_t)b), x, &e);
        hist[H + b] = (struct seen_trial){x, FOX_SEEN_RUNNING, NAN, 0};
      }
      double dmin = INFINITY;
      for (int i = 0; i < B; i++)
        for (int j = i + 1; j < B; j++) {
          double d = hypot((xs[(H + i) * 2] - xs[(H + j) * 2]) / 15,
                           (xs[(H + i) * 2 + 1] - xs[(H + j) * 2 + 1]) / 15);
          dmin = d < dmin ? d : dmin;
        }
      if (cl)
        CHECK(dmin > 0, "round %d: two proposals coincide", r);
      spread[cl] += dmin / ROUNDS;
    }
  }
  printf("  constant liar: closest pair of a round of %d, mean over %d rounds: %.4f with, %.4f "
         "without\n", B, ROUNDS, spread[1], spread[0]);
  CHECK(spread[1] > spread[0], "closest pair: %.4g with constant liar, %.4g without", spread[1],
        spread[0]);
}

/* TPE against random search: median regret over seeds at least halved on each function. */
static void test_beats_random(int slow) {
  int seeds = slow ? 50 : 20, trials = 100;
  struct config base;
  config_defaults(&base);
  double *xs = malloc((size_t)trials * FOX_SPACE_MAX * sizeof *xs);
  struct seen_trial *hist = malloc((size_t)trials * sizeof *hist);
  double best[2][50];
  for (int k = 1; k <= 3; k++) {
    struct space sp;
    if (load_space(&sp, k, study_space_yaml[k - 1]) != 0)
      continue;
    cur_tf_ = objective_function(k);
    for (int mv = 0; mv < 2; mv++) {
      struct tpe_config tc = base.study.tpe;
      tc.multivariate = mv;
      int bad = 0;
      for (int s = 0; s < seeds; s++) {
        best[0][s] = run_study(&sampler_random_ops, &tc, &sp, test_function_loss, (uint64_t)s,
                               trials, 1, xs, hist, &bad);
        best[1][s] = run_study(&sampler_tpe_ops, &tc, &sp, test_function_loss, (uint64_t)s,
                               trials, 1, xs, hist, &bad);
      }
      CHECK(bad == 0, "%s: %d proposals not reproducible or not valid", cur_tf_->name, bad);
      qsort(best[0], (size_t)seeds, sizeof(double), cmp_double_);
      qsort(best[1], (size_t)seeds, sizeof(double), cmp_double_);
      double med_r = 0.5 * (best[0][(seeds - 1) / 2] + best[0][seeds / 2]);
      double med_t = 0.5 * (best[1][(seeds - 1) / 2] + best[1][seeds / 2]);
      double reg_r = med_r - cur_tf_->minimum, reg_t = med_t - cur_tf_->minimum;
      printf("  %-10s %-5s median best over %d seeds x %d trials: tpe %.5f, random %.5f\n",
             cur_tf_->name, mv ? "mv" : "indep", seeds, trials, med_t, med_r);
      CHECK(reg_t < 0.5 * reg_r, "%s (multivariate %d): median regret tpe %.4g, random %.4g",
            cur_tf_->name, mv, reg_t, reg_r);
    }
  }
  free(xs);
  free(hist);
}

int main(int argc, char **argv) {
  int slow = argc > 1 && strcmp(argv[1], "--slow") == 0;
  test_truncnorm();
  test_parzen();
  test_split();
  test_split_multi();
  test_proposals();
  test_multi_proposals();
  test_constant_liar();
  test_beats_random(slow);
  return fox_check_done("test_tpe");
}
