/* Schedulers and the study's round logic without training: rung plans and Hyperband round
 * sizes worked out by hand (Li et al. 2018, Table 1), the promotion rule on constructed tables,
 * and whole studies driven by fabricated results through successive halving and Hyperband. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fox_check.h"
#include "search/pareto.h"
#include "study/scheduler.h"
#include "study/aggregate.h"
#include "study/study.h"
#include "study/work.h"
#include "util/rng.h"

/* ---- rung plans -------------------------------------------------------------------------- */

static void test_plan(void) {
  static const struct {
    int sched, min, max, eta, train_epochs, brackets;
    int n, epochs[8], n_brackets;
  } cases[] = {
      {FOX_SCHED_SH, 1, 9, 3, 3, 0, 3, {1, 3, 9}, 1},
      {FOX_SCHED_SH, 1, 10, 3, 3, 0, 3, {1, 3, 10}, 1},
      {FOX_SCHED_SH, 2, 2, 3, 3, 0, 1, {2}, 1},
      {FOX_SCHED_SH, 1, 27, 3, 3, 0, 4, {1, 3, 9, 27}, 1},
      {FOX_SCHED_SH, 1, 26, 3, 3, 0, 3, {1, 3, 26}, 1},  /* 27 > 26: K = 2 */
      {FOX_SCHED_SH, 3, 8, 3, 3, 0, 1, {8}, 1},          /* 9 > 8: one rung of max */
      {FOX_SCHED_SH, 2, 20, 2, 3, 0, 4, {2, 4, 8, 20}, 1}, /* 2 * 2^3 = 16 <= 20: K = 3 */
      {FOX_SCHED_SH, 1, 0, 2, 4, 0, 3, {1, 2, 4}, 1},    /* max 0: train.epochs */
      {FOX_SCHED_SH, 5, 100, 4, 3, 0, 3, {5, 20, 100}, 1}, /* 5 * 4^2 <= 100: K = 2 */
      {FOX_SCHED_NONE, 2, 9, 3, 7, 0, 1, {7}, 1},        /* none ignores min/max */
      {FOX_SCHED_HYPERBAND, 1, 81, 3, 3, 0, 5, {1, 3, 9, 27, 81}, 5},
      {FOX_SCHED_HYPERBAND, 1, 81, 3, 3, 2, 5, {1, 3, 9, 27, 81}, 2},
      {FOX_SCHED_HYPERBAND, 1, 81, 3, 3, 9, 5, {1, 3, 9, 27, 81}, 5}, /* more than rungs */
      {FOX_SCHED_HYPERBAND, 4, 4, 3, 3, 0, 1, {4}, 1},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    struct config cfg;
    config_defaults(&cfg);
    cfg.study.scheduler = cases[c].sched;
    cfg.study.min_epochs = cases[c].min;
    cfg.study.max_epochs = cases[c].max;
    cfg.study.eta = cases[c].eta;
    cfg.study.brackets = cases[c].brackets;
    struct rung_plan p;
    struct fox_err e = {0};
    int rc = scheduler_plan(&cfg.study, cases[c].train_epochs, &p, &e);
    CHECK(rc == 0, "case %zu: %s", c, e.msg);
    int same = p.n == cases[c].n && p.brackets == cases[c].n_brackets;
    for (int i = 0; same && i < p.n; i++)
      same = p.epochs[i] == cases[c].epochs[i];
    CHECK(same, "case %zu (%d, %d, %d): n %d, brackets %d, epochs %d %d %d %d %d", c,
          cases[c].min, cases[c].max, cases[c].eta, p.n, p.brackets, p.epochs[0],
          p.n > 1 ? p.epochs[1] : -1, p.n > 2 ? p.epochs[2] : -1, p.n > 3 ? p.epochs[3] : -1,
          p.n > 4 ? p.epochs[4] : -1);
  }
  /* min > max, given or taken from train.epochs: FOX_EUSAGE naming both keys and values. */
  struct config cfg;
  config_defaults(&cfg);
  cfg.study.scheduler = FOX_SCHED_SH;
  cfg.study.min_epochs = 10;
  cfg.study.max_epochs = 9;
  struct rung_plan p;
  struct fox_err e = {0};
  CHECK(scheduler_plan(&cfg.study, 3, &p, &e) == FOX_EUSAGE && e.code == FOX_EUSAGE &&
            strstr(e.msg, "min_epochs 10") && strstr(e.msg, "max_epochs 9"),
        "min > max: '%s'", e.msg);
  struct fox_err e2 = {0};
  cfg.study.scheduler = FOX_SCHED_HYPERBAND;
  cfg.study.max_epochs = 0;
  CHECK(scheduler_plan(&cfg.study, 4, &p, &e2) == FOX_EUSAGE && strstr(e2.msg, "min_epochs 10") &&
            strstr(e2.msg, "4") && strstr(e2.msg, "train.epochs"),
        "min > train.epochs: '%s'", e2.msg);
}

/* ---- Hyperband --------------------------------------------------------------------------- */

static void test_hyperband(void) {
  struct config cfg;
  config_defaults(&cfg);
  cfg.study.scheduler = FOX_SCHED_HYPERBAND;
  struct rung_plan p;
  struct fox_err e = {0};
  /* Li et al. (2018), Table 1: R = 81, eta = 3: brackets s = 4 .. 0 run n = 81, 34, 15, 8, 5
   * configurations from r = 1, 3, 9, 27, 81 epochs. Bracket b here is s = 4 - b. */
  cfg.study.min_epochs = 1;
  cfg.study.max_epochs = 81;
  cfg.study.eta = 3;
  cfg.study.round_size = 81;
  CHECK(scheduler_plan(&cfg.study, 3, &p, &e) == 0 && p.brackets == 5, "brackets %d", p.brackets);
  static const int li_n[5] = {81, 34, 15, 8, 5}, li_r[5] = {1, 3, 9, 27, 81};
  for (int b = 0; b < 5; b++) {
    CHECK(scheduler_round_trials(&cfg.study, &p, b) == li_n[b], "R 81 bracket %d: %d, expected %d",
          b, scheduler_round_trials(&cfg.study, &p, b), li_n[b]);
    CHECK(p.epochs[b] == li_r[b], "bracket %d starts at %d epochs", b, p.epochs[b]);
  }
  /* Rounds cycle through the brackets. */
  static const int cycle[12] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1};
  for (int r = 0; r < 12; r++)
    CHECK(scheduler_bracket(&cfg.study, &p, r) == cycle[r], "round %d: bracket %d", r,
          scheduler_bracket(&cfg.study, &p, r));

  /* By hand, R = 9, eta = 3, round_size 9 (K = 2): ceil(9*3/(3*1)) = 9, ceil(27/(2*3)) =
   * ceil(4.5) = 5, ceil(27/(1*9)) = 3. */
  cfg.study.max_epochs = 9;
  cfg.study.round_size = 9;
  CHECK(scheduler_plan(&cfg.study, 3, &p, &e) == 0 && p.brackets == 3, "brackets %d", p.brackets);
  static const int n9[3] = {9, 5, 3};
  for (int b = 0; b < 3; b++)
    CHECK(scheduler_round_trials(&cfg.study, &p, b) == n9[b], "R 9 bracket %d: %d, expected %d",
          b, scheduler_round_trials(&cfg.study, &p, b), n9[b]);
  /* eta = 2, 1 .. 8 epochs (K = 3), round_size 10: 10, ceil(40/(3*2)) = 7, ceil(40/(2*4)) = 5,
   * ceil(40/8) = 5. */
  cfg.study.eta = 2;
  cfg.study.max_epochs = 8;
  cfg.study.round_size = 10;
  CHECK(scheduler_plan(&cfg.study, 3, &p, &e) == 0 && p.brackets == 4, "brackets %d", p.brackets);
  static const int n8[4] = {10, 7, 5, 5};
  for (int b = 0; b < 4; b++)
    CHECK(scheduler_round_trials(&cfg.study, &p, b) == n8[b], "eta 2 bracket %d: %d, expected %d",
          b, scheduler_round_trials(&cfg.study, &p, b), n8[b]);
  /* brackets: 2 keeps the two most aggressive, cycling 0, 1, 0, 1. */
  cfg.study.brackets = 2;
  CHECK(scheduler_plan(&cfg.study, 3, &p, &e) == 0 && p.brackets == 2, "brackets %d", p.brackets);
  for (int r = 0; r < 6; r++)
    CHECK(scheduler_bracket(&cfg.study, &p, r) == r % 2, "round %d", r);
  /* A round of 1 is never 0 trials. */
  cfg.study.round_size = 1;
  for (int b = 0; b < 2; b++)
    CHECK(scheduler_round_trials(&cfg.study, &p, b) == 1, "round_size 1 bracket %d: %d", b,
          scheduler_round_trials(&cfg.study, &p, b));
  /* Successive halving has one bracket. */
  cfg.study.scheduler = FOX_SCHED_SH;
  cfg.study.brackets = 0;
  CHECK(scheduler_plan(&cfg.study, 3, &p, &e) == 0 && p.brackets == 1, "SH brackets %d",
        p.brackets);
  for (int r = 0; r < 4; r++)
    CHECK(scheduler_bracket(&cfg.study, &p, r) == 0, "SH round %d", r);
}

/* ---- promotion --------------------------------------------------------------------------- */

static void test_promote(void) {
  static const struct {
    const char *what;
    int n, eta;
    double loss[12];
    int ids[12];
    int keep[12];
  } cases[] = {
      {"quota 6/3 = 2", 6, 3, {0.5, 0.1, 0.3, 0.2, 0.4, 0.6}, {0, 1, 2, 3, 4, 5},
       {0, 1, 0, 1, 0, 0}},
      {"ties to the lower id", 6, 3, {1, 1, 1, 1, 1, 1}, {5, 3, 9, 1, 7, 2}, {0, 0, 0, 1, 0, 1}},
      {"a tie at the cut", 5, 2, {0.3, 0.5, 0.3, 0.9, 0.1}, {8, 6, 4, 2, 0}, {0, 0, 1, 0, 1}},
      {"a tie at the cut, ids", 4, 2, {0.2, 0.5, 0.2, 0.2}, {3, 0, 7, 1}, {1, 0, 0, 1}},
      {"failed never kept", 3, 3, {NAN, NAN, 0.9}, {0, 1, 2}, {0, 0, 1}},
      {"all failed", 4, 2, {NAN, NAN, NAN, NAN}, {0, 1, 2, 3}, {0, 0, 0, 0}},
      {"failed count in n", 6, 2, {NAN, 0.1, NAN, 0.2, NAN, NAN}, {0, 1, 2, 3, 4, 5},
       {0, 1, 0, 1, 0, 0}},
      {"failed with a low id", 6, 3, {0.7, NAN, 0.4, 0.6, 0.5, 0.8}, {5, 0, 4, 3, 2, 1},
       {0, 0, 1, 0, 1, 0}},
      {"n < eta keeps 1", 2, 3, {0.4, 0.3}, {0, 1}, {0, 1}},
      {"n = 1", 1, 3, {5}, {0}, {1}},
      {"n = 1 failed", 1, 3, {NAN}, {0}, {0}},
      {"eta 4, n 9: 2", 9, 4, {9, 8, 7, 6, 5, 4, 3, 2, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8},
       {0, 0, 0, 0, 0, 0, 0, 1, 1}},
      {"n 10, eta 3: 3", 10, 3, {-1, -5, 2, 0, -3, 7, -2, 1, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
       {0, 1, 0, 0, 1, 0, 1, 0, 0, 0}},
      {"no value ranks last, still kept", 3, 2, {INFINITY, INFINITY, NAN}, {4, 2, 0},
       {0, 1, 0}},
      {"infinite below finite", 4, 2, {INFINITY, 3, 2, INFINITY}, {0, 1, 2, 3}, {0, 1, 1, 0}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    int keep[12];
    memset(keep, 0x5a, sizeof keep);
    scheduler_promote(cases[c].loss, cases[c].ids, cases[c].n, cases[c].eta, keep);
    int same = 1;
    for (int i = 0; i < cases[c].n; i++)
      same &= keep[i] == cases[c].keep[i];
    CHECK(same, "%s: keep %d %d %d %d %d %d", cases[c].what, keep[0], keep[1], keep[2], keep[3],
          keep[4], keep[5]);
  }
}

/* The rule as it reads (an entrant is kept when fewer than the quota rank ahead of it), counted
 * pair by pair, against the sort on many ties, NaNs and infinities. */
static int ahead_(double la, int ia, double lb, int ib) {
  if (isnan(la) != isnan(lb))
    return isnan(lb);
  if (!isnan(la) && la != lb)
    return la < lb;
  return ia < ib;
}

static void test_promote_random(void) {
  static const double pool[] = {NAN, INFINITY, -2, 0, 0.5, 0.5, 1, 3};
  uint64_t x = 88172645463325252ULL;
  int bad = 0;
  for (int c = 0; c < 3000; c++) {
    double loss[40];
    int ids[40], keep[40], want[40];
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int n = 1 + (int)(x % 40), eta = 2 + (int)(x / 40 % 3);
    for (int i = 0; i < n; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      loss[i] = pool[x % 8];
      ids[i] = (int)(x / 8 % 1000) * 64 + i; /* distinct, in no order */
    }
    scheduler_promote(loss, ids, n, eta, keep);
    int quota = n / eta > 1 ? n / eta : 1;
    for (int i = 0; i < n; i++) {
      int a = 0;
      for (int j = 0; j < n; j++)
        a += j != i && ahead_(loss[j], ids[j], loss[i], ids[i]);
      want[i] = a < quota && !isnan(loss[i]);
      bad += keep[i] != want[i];
    }
  }
  CHECK(bad == 0, "3000 random rungs: %d decisions differ from the pairwise count", bad);
}

/* ---- whole studies ----------------------------------------------------------------------- */

#define PARAMS_                                                                                   \
  "parameters:\n"                                                                                 \
  "  x0: {distribution: uniform, min: -5, max: 10}\n"                                             \
  "  x1: {distribution: uniform, min: 0, max: 15}\n"

static const char sh_yaml[] =
    "study:\n"
    "  seed: 17\n"
    "  objective: {function: branin, direction: minimize}\n"
    "  sampler: random\n"
    "  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 9, eta: 3}\n"
    "  trials: 9\n"
    "  round_size: 9\n"
    "train: {epochs: 9}\n" PARAMS_;

static const char hb_yaml[] =
    "study:\n"
    "  seed: 5\n"
    "  objective: {function: branin, direction: maximize}\n"
    "  sampler: random\n"
    "  scheduler: {name: hyperband, min_epochs: 1, max_epochs: 9, eta: 3}\n"
    "  trials: 14\n"
    "  round_size: 9\n"
    "train: {epochs: 2}\n" PARAMS_;

enum { OK_ = 0, FAIL_ = 1, STOP_ = 2 };

/* A result for a work item: the value we choose (not the function's), a failure, or a stop. */
static struct work_result result_(const struct work_item *w, int kind, double value) {
  struct work_result r;
  memset(&r, 0, sizeof r);
  r.trial = w->trial;
  r.repeat = w->repeat;
  r.done = kind == STOP_ ? FOX_WORK_STOPPED : FOX_WORK_DONE;
  r.status = kind == FAIL_ ? FOX_ST_FAILED : FOX_ST_RUNNING;
  r.epochs = kind == OK_ ? w->to_epochs : w->from_epochs + 1;
  r.rank = 3;
  r.seconds = 0.5;
  r.start = 1000.0 + 10.0 * w->from_epochs; /* UTC seconds: a later rung starts later */
  for (int f = 0; f < FOX_FOLDS_MAX; f++)
    for (int m = 0; m < FOX_STUDY_METRICS; m++)
      r.metrics[f][m] = NAN;
  r.metrics[0][0] = value;
  if (kind == FAIL_)
    snprintf(r.reason, sizeof r.reason, "loss is NaN at epoch %d", r.epochs);
  return r;
}

/* The next step must be exactly these trials, from `from` to `to` epochs. */
static int expect_work_(struct study *s, struct work_item *items, const int *ids, int n, int from,
                        int to, const char *what) {
  int got = -1;
  struct fox_err e = {0};
  int rc = study_next_work(s, items, &got, &e);
  CHECK(rc == 0, "%s: %s", what, e.msg);
  int same = got == n;
  for (int j = 0; same && j < n; j++) {
    const struct work_item *w = &items[j];
    const struct study_trial *t = &s->trials[w->trial];
    same = w->trial == ids[j] && w->from_epochs == from && w->to_epochs == to &&
           w->keep_state == (to != s->plan.epochs[s->plan.n - 1]) && w->seed == t->seed &&
           memcmp(w->x, t->x, sizeof w->x) == 0;
  }
  CHECK(same, "%s: %d items (first trial %d, %d -> %d epochs), expected %d (first %d, %d -> %d)",
        what, got, got > 0 ? items[0].trial : -1, got > 0 ? items[0].from_epochs : -1,
        got > 0 ? items[0].to_epochs : -1, n, n > 0 ? ids[0] : -1, from, to);
  return same;
}

/* Trial i's row: status, last rung reached, epochs trained. */
static void expect_trial_(const struct study *s, int i, int status, int rung, int epochs,
                          const char *what) {
  const struct study_trial *t = &s->trials[i];
  CHECK(t->status == status && t->rung == rung && t->epochs == epochs,
        "%s: trial %d status %s rung %d epochs %d, expected %s rung %d epochs %d", what, i,
        study_status_names[t->status], t->rung, t->epochs, study_status_names[status], rung,
        epochs);
}

static void record_(struct study *s, const struct work_item *items, int n, const int *kind,
                    const double *value) {
  struct work_result res[16];
  for (int j = 0; j < n; j++)
    res[j] = result_(&items[j], kind ? kind[items[j].trial] : OK_, value[items[j].trial]);
  study_record(s, res, n);
}

/* Synchronous successive halving over 9 trials, 1 / 3 / 9 epochs, eta 3. Rung 0 (losses by
 * trial): 5 3 8 1 F 2 3 4 6 with trial 4 failed (its metric -100 is never a value): n = 9 with
 * the failure, so the best floor(9/3) = 3 go on: 3 (1), 5 (2), 1 (3; ties 6 at 3, lower id).
 * Counting only the 8 finished would keep 2. Rung 1: 1 -> 4.0, 3 -> 9.5, 5 -> 9.0: trial 1 goes
 * on alone and completes at 9 epochs. */
static void test_study_sh(void) {
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, sh_yaml, NULL, "sh.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(s.plan.n == 3 && s.plan.epochs[0] == 1 && s.plan.epochs[1] == 3 && s.plan.epochs[2] == 9,
        "plan %d: %d %d %d", s.plan.n, s.plan.epochs[0], s.plan.epochs[1], s.plan.epochs[2]);
  CHECK(s.total == 9 && s.plan_epochs == 9 && s.n_metrics == 1 && s.objective == 0,
        "total %d, plan_epochs %d", s.total, s.plan_epochs);
  struct work_item items[9];
  static const int all[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  double v0[9] = {5, 3, 8, 1, -100, 2, 3, 4, 6};
  int k0[9] = {OK_, OK_, OK_, OK_, FAIL_, OK_, OK_, OK_, OK_};

  expect_work_(&s, items, all, 9, 0, 1, "rung 0");
  CHECK(s.n == 9 && s.rounds == 1, "after the first proposal: n %d, rounds %d", s.n, s.rounds);
  for (int i = 0; i < s.n; i++) {
    const struct study_trial *t = &s.trials[i];
    CHECK(t->id == i && t->round == 0 && t->bracket == 0 && t->status == FOX_ST_RUNNING &&
              t->rung == -1 && t->next_rung == 0 && t->epochs == 0 &&
              t->seed == rng_hash2(17, (uint64_t)i),
          "new trial %d", i);
    CHECK(t->x[0] >= -5 && t->x[0] <= 10 && t->x[1] >= 0 && t->x[1] <= 15 && isnan(t->x[2]),
          "trial %d x = (%g, %g, %g)", i, t->x[0], t->x[1], t->x[2]);
  }
  /* Part of the step: trials 0 .. 3 done, 5 stopped; the rest are offered again, nothing is
   * decided, and the stopped trial is untouched. */
  int kind_a[9] = {OK_, OK_, OK_, OK_, STOP_, STOP_, STOP_, STOP_, STOP_};
  double stopped_v[9] = {5, 3, 8, 1, -50, -50, -50, -50, -50};
  record_(&s, items, 4, kind_a, stopped_v);
  record_(&s, items + 5, 1, kind_a, stopped_v);
  static const int rest[5] = {4, 5, 6, 7, 8};
  expect_work_(&s, items, rest, 5, 0, 1, "rung 0, after a partial step");
  for (int i = 0; i < 9; i++)
    expect_trial_(&s, i, FOX_ST_RUNNING, i < 4 ? 0 : -1, i < 4 ? 1 : 0, "partial");
  /* what a resume keeps of the live metrics: the recorded epochs; none of a stopped segment */
  CHECK(study_recorded_epochs(&s, 3, 0, 0) == 1 && study_recorded_epochs(&s, 5, 0, 0) == 0 &&
            study_recorded_epochs(&s, 3, 1, 0) == 0 && study_recorded_epochs(&s, 99, 0, 0) == 0,
        "recorded epochs %d %d", study_recorded_epochs(&s, 3, 0, 0),
        study_recorded_epochs(&s, 5, 0, 0));
  CHECK(isnan(s.trials[5].metrics[0]) && s.trials[5].seconds == 0 && s.trials[5].rank == -1 &&
            isnan(s.trials[5].start) && isnan(s.trials[5].end),
        "stopped trial 5 recorded: metric %g, seconds %g, rank %d", s.trials[5].metrics[0],
        s.trials[5].seconds, s.trials[5].rank);
  record_(&s, items, 5, k0, v0);

  /* Decision at rung 0. */
  static const int r1[3] = {1, 3, 5};
  expect_work_(&s, items, r1, 3, 1, 3, "rung 1");
  for (int i = 0; i < 9; i++) {
    if (i == 4)
      expect_trial_(&s, i, FOX_ST_FAILED, -1, 1, "after rung 0");
    else if (i == 1 || i == 3 || i == 5)
      expect_trial_(&s, i, FOX_ST_RUNNING, 0, 1, "after rung 0");
    else
      expect_trial_(&s, i, FOX_ST_PRUNED, 0, 1, "after rung 0");
  }
  CHECK(strcmp(s.trials[4].reason, "loss is NaN at epoch 1") == 0, "reason '%s'",
        s.trials[4].reason);
  /* a trial that failed in its first segment (its rung still -1) keeps the epochs it evaluated:
   * a resume must not drop their lines, it trains the trial no more */
  CHECK(study_recorded_epochs(&s, 4, 0, 0) == 1, "failed trial 4: recorded epochs %d",
        study_recorded_epochs(&s, 4, 0, 0));
  CHECK(s.trials[1].next_rung == 1 && s.trials[0].next_rung == 0, "next_rung %d %d",
        s.trials[1].next_rung, s.trials[0].next_rung);
  CHECK(s.trials[3].rank == 3 && s.trials[3].seconds == 0.5 && s.trials[3].metrics[0] == 1,
        "recorded rank %d seconds %g value %g", s.trials[3].rank, s.trials[3].seconds,
        s.trials[3].metrics[0]);

  /* Rung 1: trial 3 stopped first (offered again from 1 epoch), then all three done. */
  double v1[9] = {0, 4.0, 0, 9.5, 0, 9.0, 0, 0, 0};
  int kind_b[9] = {OK_, STOP_, OK_, STOP_, OK_, STOP_, OK_, OK_, OK_};
  record_(&s, items, 3, kind_b, v1);
  expect_work_(&s, items, r1, 3, 1, 3, "rung 1 after stops");
  record_(&s, items, 3, NULL, v1);
  /* The row's span: its first segment's start to its last one's end (the stopped segment
   * recorded nothing); a row not run has none. */
  CHECK(s.trials[3].start == 1000 && s.trials[3].end == 1010.5 &&
            s.trials[3].rep[0].start == 1000 && s.trials[3].rep[0].end == 1010.5,
        "trial 3 ran %.17g to %.17g (repeat 0: %.17g to %.17g), expected 1000 to 1010.5",
        s.trials[3].start, s.trials[3].end, s.trials[3].rep[0].start, s.trials[3].rep[0].end);
  CHECK(s.trials[0].start == 1000 && s.trials[0].end == 1000.5, "trial 0 ran %g to %g",
        s.trials[0].start, s.trials[0].end);
  static const int r2[1] = {1};
  expect_work_(&s, items, r2, 1, 3, 9, "rung 2");
  expect_trial_(&s, 3, FOX_ST_PRUNED, 1, 3, "after rung 1");
  expect_trial_(&s, 5, FOX_ST_PRUNED, 1, 3, "after rung 1");
  expect_trial_(&s, 1, FOX_ST_RUNNING, 1, 3, "after rung 1");
  CHECK(s.trials[1].seconds == 1.0, "seconds add up over segments: %g", s.trials[1].seconds);
  CHECK(!study_finished(&s), "finished with a trial running");

  double v2[9] = {0, 0.2};
  record_(&s, items, 1, NULL, v2);
  int n = -1;
  CHECK(study_next_work(&s, items, &n, &e) == 0 && n == 0, "after the last rung: %d items", n);
  expect_trial_(&s, 1, FOX_ST_COMPLETE, 2, 9, "end");
  static const int st[9] = {FOX_ST_PRUNED, FOX_ST_COMPLETE, FOX_ST_PRUNED, FOX_ST_PRUNED,
                            FOX_ST_FAILED, FOX_ST_PRUNED, FOX_ST_PRUNED, FOX_ST_PRUNED,
                            FOX_ST_PRUNED};
  for (int i = 0; i < 9; i++)
    CHECK(s.trials[i].status == st[i], "end: trial %d %s", i,
          study_status_names[s.trials[i].status]);
  CHECK(study_finished(&s) && s.n == 9 && s.rounds == 1, "finished %d, n %d, rounds %d",
        study_finished(&s), s.n, s.rounds);
  CHECK(study_best(&s) == 1, "best %d", study_best(&s));
  CHECK(study_next_work(&s, items, &n, &e) == 0 && n == 0 && s.n == 9, "again: %d items", n);
  study_free(&s);
}

/* Hyperband over two rounds (maximise; values are metrics, higher is better), R = 9, eta = 3,
 * three brackets. Round 0, bracket 0, 9 trials from rung 0: values 1 7 3 9 2 8 4 6 5 keep 3, 5,
 * 1; rung 1: 1 -> 0.3, 3 -> 0.9, 5 fails: keep 3 (quota 1), complete at 0.6. Round 1, bracket
 * 1: ceil(9 * 3 / (2 * 3)) = 5 trials (9 .. 13) from rung 1 (0 -> 3 epochs): 5 F 7 7 1 with
 * trial 10 failed: quota floor(5/3) = 1, trial 11 (7, ties 12) goes to 9 epochs. */
static void test_study_hyperband(void) {
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, hb_yaml, NULL, "hb.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(s.plan.n == 3 && s.plan.brackets == 3 && s.plan_epochs == 9 && s.total == 14,
        "plan n %d brackets %d epochs %d total %d", s.plan.n, s.plan.brackets, s.plan_epochs,
        s.total);
  struct work_item items[9];
  static const int all[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  double v[14] = {1, 7, 3, 9, 2, 8, 4, 6, 5};
  expect_work_(&s, items, all, 9, 0, 1, "round 0 rung 0");
  record_(&s, items, 9, NULL, v);
  static const int r1[3] = {1, 3, 5};
  expect_work_(&s, items, r1, 3, 1, 3, "round 0 rung 1");
  CHECK(s.n == 9, "round 1 proposed early: n %d", s.n);
  int k1[14] = {OK_, OK_, OK_, OK_, OK_, FAIL_};
  v[1] = 0.3, v[3] = 0.9, v[5] = 1e9;
  record_(&s, items, 3, k1, v);
  static const int r2[1] = {3};
  expect_work_(&s, items, r2, 1, 3, 9, "round 0 rung 2");
  expect_trial_(&s, 5, FOX_ST_FAILED, 0, 2, "round 0");
  expect_trial_(&s, 1, FOX_ST_PRUNED, 1, 3, "round 0");
  CHECK(s.n == 9 && s.rounds == 1, "round 1 proposed early: n %d", s.n);
  v[3] = 0.6;
  record_(&s, items, 1, NULL, v);

  /* Round 1, bracket 1. */
  static const int b1[5] = {9, 10, 11, 12, 13};
  expect_work_(&s, items, b1, 5, 0, 3, "round 1 rung 1");
  CHECK(s.n == 14 && s.rounds == 2, "n %d, rounds %d", s.n, s.rounds);
  expect_trial_(&s, 3, FOX_ST_COMPLETE, 2, 9, "round 0 done");
  for (int i = 9; i < 14; i++)
    CHECK(s.trials[i].round == 1 && s.trials[i].bracket == 1 && s.trials[i].next_rung == 1 &&
              s.trials[i].rung == -1,
          "trial %d: round %d bracket %d next_rung %d", i, s.trials[i].round, s.trials[i].bracket,
          s.trials[i].next_rung);
  for (int i = 0; i < 9; i++)
    CHECK(s.trials[i].round == 0 && s.trials[i].bracket == 0, "trial %d round %d", i,
          s.trials[i].round);
  int k2[14] = {0};
  k2[10] = FAIL_;
  double w[14] = {0};
  w[9] = 5, w[10] = 1e9, w[11] = 7, w[12] = 7, w[13] = 1;
  record_(&s, items, 5, k2, w);
  static const int b1r2[1] = {11};
  expect_work_(&s, items, b1r2, 1, 3, 9, "round 1 rung 2");
  expect_trial_(&s, 9, FOX_ST_PRUNED, 1, 3, "round 1");
  expect_trial_(&s, 10, FOX_ST_FAILED, -1, 1, "round 1");
  expect_trial_(&s, 12, FOX_ST_PRUNED, 1, 3, "round 1");
  expect_trial_(&s, 13, FOX_ST_PRUNED, 1, 3, "round 1");
  w[11] = 0.5;
  record_(&s, items, 1, NULL, w);
  int n = -1;
  CHECK(study_next_work(&s, items, &n, &e) == 0 && n == 0, "after round 1: %d items", n);
  expect_trial_(&s, 11, FOX_ST_COMPLETE, 2, 9, "end");
  int count[4] = {0};
  for (int i = 0; i < s.n; i++)
    count[s.trials[i].status]++;
  CHECK(count[FOX_ST_COMPLETE] == 2 && count[FOX_ST_PRUNED] == 10 && count[FOX_ST_FAILED] == 2 &&
            count[FOX_ST_RUNNING] == 0,
        "statuses %d %d %d %d", count[0], count[1], count[2], count[3]);
  CHECK(study_finished(&s) && s.rounds == 2, "finished %d rounds %d", study_finished(&s),
        s.rounds);
  /* Maximising: trial 3 (0.6) beats trial 11 (0.5). */
  CHECK(study_best(&s) == 3, "best %d", study_best(&s));
  study_free(&s);
}

/* No scheduler, 3 trials in rounds of 2: one rung of train.epochs, rounds of 2 then 1, every
 * trial complete after one segment. */
static void test_study_none(void) {
  static const char yaml[] = "study:\n"
                             "  objective: {function: branin, direction: minimize}\n"
                             "  sampler: random\n"
                             "  trials: 3\n"
                             "  round_size: 2\n"
                             "train: {epochs: 4}\n" PARAMS_;
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, yaml, NULL, "none.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(s.plan.n == 1 && s.plan.epochs[0] == 4, "plan %d: %d", s.plan.n, s.plan.epochs[0]);
  struct work_item items[2];
  double v[3] = {2, 1, 3};
  static const int a[2] = {0, 1}, b[1] = {2};
  expect_work_(&s, items, a, 2, 0, 4, "round 0");
  record_(&s, items, 2, NULL, v);
  expect_work_(&s, items, b, 1, 0, 4, "round 1");
  expect_trial_(&s, 0, FOX_ST_COMPLETE, 0, 4, "round 0");
  expect_trial_(&s, 1, FOX_ST_COMPLETE, 0, 4, "round 0");
  record_(&s, items, 1, NULL, v);
  int n = -1;
  CHECK(study_next_work(&s, items, &n, &e) == 0 && n == 0 && study_finished(&s), "end: %d", n);
  expect_trial_(&s, 2, FOX_ST_COMPLETE, 0, 4, "round 1");
  CHECK(s.rounds == 2 && s.trials[2].round == 1 && study_best(&s) == 1, "rounds %d best %d",
        s.rounds, study_best(&s));
  study_free(&s);
}

/* study_best (study.h): the best complete trial, ties to the lower id, -1 while none is
 * complete however good the running or pruned ones look. In the successive-halving study after
 * rung 1, trial 6 was pruned at 3.0 and trial 1 runs on at 4.0: still -1. At the end trial 1
 * alone is complete. */
static void test_study_best(void) {
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, sh_yaml, NULL, "sh.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  struct work_item items[9];
  int n;
  double v0[9] = {5, 3, 8, 1, 7, 2, 3, 4, 6}, v1[9] = {0, 4.0, 0, 9.5, 0, 9.0},
         v2[9] = {0, 20.0};
  CHECK(study_best(&s) == -1, "best of nothing %d", study_best(&s));
  study_next_work(&s, items, &n, &e);
  record_(&s, items, n, NULL, v0);
  study_next_work(&s, items, &n, &e);
  record_(&s, items, n, NULL, v1);
  study_next_work(&s, items, &n, &e);
  CHECK(n == 1 && items[0].trial == 1, "rung 2: %d items", n);
  CHECK(study_best(&s) == -1, "best before completion: trial %d, expected none", study_best(&s));
  record_(&s, items, n, NULL, v2);
  study_next_work(&s, items, &n, &e);
  CHECK(n == 0 && study_best(&s) == 1, "best %d, expected the one complete trial 1 (at 20.0)",
        study_best(&s));
  study_free(&s);

  /* Ties: three complete trials at the same value, the first is the best. */
  static const char yaml[] = "study:\n"
                             "  objective: {function: branin, direction: maximize}\n"
                             "  sampler: random\n"
                             "  trials: 3\n"
                             "  round_size: 3\n"
                             "train: {epochs: 1}\n" PARAMS_;
  rc = study_create_text(&s, yaml, NULL, "tie.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  double v[3] = {2, 2, 2};
  study_next_work(&s, items, &n, &e);
  record_(&s, items, n, NULL, v);
  study_next_work(&s, items, &n, &e);
  CHECK(n == 0 && study_finished(&s) && study_best(&s) == 0, "tie: best %d", study_best(&s));
  study_free(&s);
}

/* study_best of studies of 2 and 3 objectives (one maximised), with and without a constraint,
 * on values drawn from a few (ties), some failed or NaN, against its definition read pair by
 * pair: the lowest first loss among feasible trials no feasible trial dominates, ties to the
 * lower id. */
static void test_study_best_front(void) {
  static const char *const yamls[] = {
      "study:\n  objective: [{metric: f0, function: binh_korn}, {metric: f1}]\n",
      "study:\n  objective: [{metric: f0, function: binh_korn}, {metric: f1}]\n"
      "  constraints: [\"c0 <= 1\"]\n",
      "study:\n  objective: [{metric: f0, function: binh_korn}, {metric: f1}, "
      "{metric: c0, direction: maximize}]\n",
      "study:\n  objective: [{metric: f0, function: binh_korn}, {metric: f1}, {metric: c0}]\n"
      "  constraints: [\"c1 >= 1\"]\n",
  };
  static const double pool[] = {0, 1, 1, 2, 3, NAN, -1, 2};
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  int bad = 0, runs = 0, found = 0;
  for (int y = 0; y < 4; y++)
    for (int rep = 0; rep < 250; rep++) {
      char text[600];
      snprintf(text, sizeof text, "%s  seed: %d\n  sampler: random\n  trials: 40\n"
               "  round_size: 40\ntrain: {epochs: 1}\nparameters:\n"
               "  x0: {distribution: uniform, min: 0, max: 5}\n"
               "  x1: {distribution: uniform, min: 0, max: 3}\n", yamls[y], rep);
      struct study s;
      struct fox_err e = {0};
      if (study_create_text(&s, text, NULL, "front.yaml", &e) != 0) {
        CHECK(0, "%s", e.msg);
        return;
      }
      struct work_item items[40];
      struct work_result res[40];
      int n;
      study_next_work(&s, items, &n, &e);
      for (int j = 0; j < n; j++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        res[j] = result_(&items[j], x % 13 == 0 ? FAIL_ : OK_, 0);
        for (int m = 0; m < s.n_metrics; m++) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          res[j].metrics[0][m] = pool[x % 8];
        }
      }
      study_record(&s, res, n);
      study_next_work(&s, items, &n, &e);
      int want = -1;
      double wl = INFINITY;
      for (int i = 0; i < s.n; i++) {
        const struct study_trial *t = &s.trials[i];
        double vi[FOX_OBJ_MAX], vj[FOX_OBJ_MAX], l = study_loss(&s, t);
        if (study_feasible(&s, t) != 1 || isnan(l) || !(l < wl))
          continue;
        study_losses(&s, t, vi);
        int dom = 0;
        for (int j = 0; j < s.n && !dom; j++) {
          study_losses(&s, &s.trials[j], vj);
          dom = study_feasible(&s, &s.trials[j]) == 1 && pareto_dominates(vj, vi, s.n_obj);
        }
        if (!dom)
          want = i, wl = l;
      }
      bad += study_best(&s) != want;
      found += want >= 0;
      runs++;
      study_free(&s);
    }
  CHECK(bad == 0 && found > runs / 2, "%d of %d studies: best differs (%d with a best)", bad,
        runs, found);
}

/* Aggregates worked by hand. v = {4, 1, 3, 2}: mean 2.5; median (2 + 3) / 2 = 2.5; iqm cuts
 * floor(4/4) = 1 from each end of 1 2 3 4: (2 + 3) / 2 = 2.5; std (ddof 1) = sqrt(((1.5^2 +
 * 0.5^2) * 2) / 3) = sqrt(5/3) = 1.290994..., lcb = 2.5 - 1.290994 / 2 = 1.854503 (maximise),
 * 3.145497 (minimise). v = {10, 0, 1, 2, 3, 4, 5, 6, -20}: sorted -20 0 1 2 3 4 5 6 10, mean
 * 11/9, median 3, iqm cuts 2 each end: (1+2+3+4+5)/5 = 3. NaN values are left out; none left
 * is NaN. */
static void test_aggregate(void) {
  double a[4];
  const double v4[4] = {4, 1, 3, 2};
#define AGG_(how, max, want)                                                                   \
  do {                                                                                         \
    memcpy(a, v4, sizeof a);                                                                   \
    CHECK_NEAR(aggregate(a, 4, how, max), want, 1e-12, 0);                                     \
  } while (0)
  AGG_(FOX_AGG_MEAN, 1, 2.5);
  AGG_(FOX_AGG_MEDIAN, 1, 2.5);
  AGG_(FOX_AGG_IQM, 1, 2.5);
  AGG_(FOX_AGG_LCB, 1, 2.5 - sqrt(5.0 / 3.0) / 2);
  AGG_(FOX_AGG_LCB, 0, 2.5 + sqrt(5.0 / 3.0) / 2);
#undef AGG_
  CHECK_NEAR(aggregate_std(v4, 4), sqrt(5.0 / 3.0), 1e-12, 0);
  const double v9[9] = {10, 0, 1, 2, 3, 4, 5, 6, -20};
  double b[9];
  memcpy(b, v9, sizeof b);
  CHECK_NEAR(aggregate(b, 9, FOX_AGG_MEAN, 1), 11.0 / 9, 1e-12, 0);
  memcpy(b, v9, sizeof b);
  CHECK_NEAR(aggregate(b, 9, FOX_AGG_MEDIAN, 1), 3, 0, 0);
  memcpy(b, v9, sizeof b);
  CHECK_NEAR(aggregate(b, 9, FOX_AGG_IQM, 1), 3, 1e-12, 0);
  /* n = 3: trim_mean cuts floor(3/4) = 0, the iqm is the mean. */
  double c[3] = {1, 2, 9};
  CHECK_NEAR(aggregate(c, 3, FOX_AGG_IQM, 1), 4, 1e-12, 0);
  double d[3] = {NAN, 7, NAN};
  CHECK_NEAR(aggregate(d, 3, FOX_AGG_LCB, 1), 7, 0, 0); /* one value: no spread to subtract */
  const double d1[3] = {NAN, 7, NAN};
  CHECK(isnan(aggregate_std(d1, 3)), "std of one value");
  double f[2] = {NAN, NAN};
  CHECK(isnan(aggregate(f, 2, FOX_AGG_MEDIAN, 1)), "nothing to aggregate");
}

/* Successive halving over 9 configurations x 3 repeats, median aggregate, minimise: the
 * decision at rung 0 goes by the median of each configuration's repeats, not by any one seed.
 * Values by (trial, repeat) chosen so that repeat 0 alone would keep 8, 0, 1 and the mean 8, 0,
 * 3 (one lucky seed at -30 in trial 8): medians 5 5 5 4 F 3 7 6 8 -> keep 5 (3), 3 (4), then
 * 0 (5, tied with 1 and 2: the lower id). Repeat 1 of trial 4 fails: trial 4 is failed with "repeat 1: ...". Partial steps
 * offer again only the repeats not yet recorded; every item of repeat r has seed rep_seed[r]. */
static void test_study_repeats(void) {
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, sh_yaml, "study.repeats=3\nstudy.objective.aggregate=median",
                             "sh.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(s.repeats == 3 && s.folds == 1 && study_max_items(&s) == 27, "repeats %d folds %d",
        s.repeats, s.folds);
  static const double v[9][3] = {{0, 5, 6},  {1, 5, 7}, {2, 5, 9}, {4, 3, 4},  {9, 9, 9},
                                 {3, 3, 8},  {7, 7, 7}, {6, 6, 6}, {-30, 8, 9}};
  struct work_item items[27];
  int n = -1;
  CHECK(study_next_work(&s, items, &n, &e) == 0 && n == 27, "rung 0: %d items", n);
  int paired = 1;
  for (int j = 0; j < n; j++)
    paired = paired && items[j].trial == j / 3 && items[j].repeat == j % 3 &&
             items[j].seed == s.rep_seed[j % 3] && s.rep_seed[j % 3] != s.trials[j / 3].seed &&
             items[j].from_epochs == 0 && items[j].to_epochs == 1;
  CHECK(paired, "rung 0 items: trial-major, repeat r seeded rep_seed[r] for every trial");
  CHECK(s.rep_seed[0] != s.rep_seed[1] && s.rep_seed[1] != s.rep_seed[2], "distinct seeds");
  /* A partial step: only repeat 0 of every trial and repeat 1 of trial 0. */
  struct work_result res[27];
  int m = 0;
  for (int j = 0; j < n; j++) {
    int kind = items[j].repeat == 0 || j == 1 ? OK_ : STOP_;
    res[m++] = result_(&items[j], kind, v[items[j].trial][items[j].repeat]);
  }
  study_record(&s, res, m);
  for (int i = 0; i < 9; i++)
    CHECK(s.trials[i].rung == -1 && s.trials[i].status == FOX_ST_RUNNING,
          "trial %d moved on with repeats missing (rung %d)", i, s.trials[i].rung);
  CHECK(study_next_work(&s, items, &n, &e) == 0 && n == 17, "after the partial step: %d items",
        n);
  CHECK(items[0].trial == 0 && items[0].repeat == 2 && items[1].trial == 1 &&
            items[1].repeat == 1,
        "offered again: (%d, %d), (%d, %d)", items[0].trial, items[0].repeat, items[1].trial,
        items[1].repeat);
  for (int j = 0; j < n; j++) {
    int fail = items[j].trial == 4 && items[j].repeat == 1;
    res[j] = result_(&items[j], fail ? FAIL_ : OK_, v[items[j].trial][items[j].repeat]);
  }
  study_record(&s, res, n);
  CHECK(s.trials[4].status == FOX_ST_FAILED &&
            strcmp(s.trials[4].reason, "repeat 1: loss is NaN at epoch 1") == 0,
        "trial 4: %s, '%s'", study_status_names[s.trials[4].status], s.trials[4].reason);
  CHECK(s.trials[8].metrics[0] == 8 && s.trials[0].metrics[0] == 5,
        "medians %g %g", s.trials[8].metrics[0], s.trials[0].metrics[0]);
  CHECK_NEAR(s.trials[3].spread[0], sqrt(1.0 / 3.0), 1e-12, 0); /* 4 3 4 */
  CHECK(s.trials[0].seconds == 1.5 && s.trials[0].epochs == 1, "seconds %g epochs %d",
        s.trials[0].seconds, s.trials[0].epochs);
  CHECK(study_next_work(&s, items, &n, &e) == 0 && n == 9, "rung 1: %d items", n);
  static const int kept[3] = {0, 3, 5};
  for (int j = 0; j < n; j++)
    CHECK(items[j].trial == kept[j / 3] && items[j].repeat == j % 3 &&
              items[j].from_epochs == 1 && items[j].to_epochs == 3,
          "rung 1 item %d: trial %d repeat %d", j, items[j].trial, items[j].repeat);
  study_free(&s);
}

int main(void) {
  test_aggregate();
  test_study_repeats();
  test_plan();
  test_hyperband();
  test_promote();
  test_promote_random();
  test_study_sh();
  test_study_hyperband();
  test_study_none();
  test_study_best();
  test_study_best_front();
  return fox_check_done("test_scheduler");
}
