/* PBT's decisions without training: Ray Tune's quantile sizes, the exploit rule on constructed
 * losses (bottom quantile and every failed member copy a top member; the draw uniform over the
 * top), explore's moves (a factor product clamped to the range, a neighbouring choice, a
 * resample at resample_probability, fixed and inactive parameters untouched), and a whole
 * study driven by fabricated results: ids, lineage, from/to epochs, where states are held. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "fox_check.h"
#include "study/pbt.h"
#include "study/study.h"
#include "study/work.h"

static void test_quantile(void) {
  /* ceil(n q), at most floor(n / 2) (ray.tune.schedulers.pbt._quantiles) */
  static const struct {
    int n;
    double q;
    int k;
  } c[] = {{8, 0.25, 2}, {4, 0.25, 1}, {3, 0.25, 1}, {2, 0.5, 1}, {5, 0.5, 2},
           {10, 0.3, 3}, {2, 0.25, 1}, {16, 0.25, 4}, {7, 0.2, 2}, {9, 0.1, 1}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++)
    CHECK(pbt_quantile_size(c[i].n, c[i].q) == c[i].k, "n %d q %g: %d, expected %d", c[i].n,
          c[i].q, pbt_quantile_size(c[i].n, c[i].q), c[i].k);
}

static void test_exploit(void) {
  /* 8 members, losses (lower is better): order 3 (0.1), 6 (0.2), 0 (0.5), 1 (0.5), 7 (0.9),
   * 2 (1.0), 4 (2.0), 5 (failed). k = 2: top {3, 6}; bottom {4, 5}; 5 failed copies too. */
  double loss[8] = {0.5, 0.5, 1.0, 0.1, 2.0, NAN, 0.2, 0.9};
  int donor[16], healthy = pbt_exploit(loss, 8, 0.25, 42, donor);
  CHECK(healthy == 7, "healthy %d", healthy);
  for (int i = 0; i < 8; i++) {
    int bottom = i == 4 || i == 5;
    CHECK(bottom ? donor[i] == 3 || donor[i] == 6 : donor[i] == -1, "member %d donor %d", i,
          donor[i]);
  }
  /* two failed members beyond the bottom quantile: both copy, and the worst healthy too */
  double l2[6] = {NAN, 1, 2, NAN, 3, 0};
  healthy = pbt_exploit(l2, 6, 0.25, 7, donor); /* k = 2: top {5, 1}, bottom {3, 0} */
  CHECK(healthy == 4, "healthy %d", healthy);
  CHECK(donor[0] >= 0 && donor[3] >= 0 && donor[4] == -1 && donor[2] == -1 && donor[1] == -1 &&
            donor[5] == -1,
        "donors %d %d %d %d %d %d", donor[0], donor[1], donor[2], donor[3], donor[4], donor[5]);
  CHECK((donor[0] == 5 || donor[0] == 1) && (donor[3] == 5 || donor[3] == 1), "from the top");
  /* a failure beyond the quantile: 8 members, 3 failed: the bottom 2 are failed ones, and the
   * third failed member copies as well */
  double l3[8] = {0, NAN, 1, NAN, 2, NAN, 3, 4};
  pbt_exploit(l3, 8, 0.25, 9, donor);
  int copies = 0;
  for (int i = 0; i < 8; i++)
    copies += donor[i] >= 0;
  CHECK(copies == 3 && donor[1] >= 0 && donor[3] >= 0 && donor[5] >= 0 && donor[7] == -1,
        "%d copies", copies);
  /* everyone failed: nobody to copy */
  double l4[3] = {NAN, NAN, NAN};
  CHECK(pbt_exploit(l4, 3, 0.25, 1, donor) == 0 && donor[0] == -1 && donor[2] == -1, "none");
  /* ties go to the lower index: top of {1, 1, 1, 1} is member 0 */
  double l5[4] = {1, 1, 1, 1};
  pbt_exploit(l5, 4, 0.25, 3, donor);
  CHECK(donor[3] == 0 && donor[0] == -1 && donor[1] == -1 && donor[2] == -1, "ties");
  /* the draw is uniform over the top quantile and a function of the seed */
  double l6[16];
  for (int i = 0; i < 16; i++)
    l6[i] = i;
  int hits[16] = {0}, again[16];
  for (uint64_t seed = 0; seed < 4000; seed++) {
    pbt_exploit(l6, 16, 0.25, seed, donor);
    for (int i = 12; i < 16; i++)
      hits[donor[i]]++;
  }
  for (int j = 0; j < 4; j++) /* 16000 draws over 4: 4000 each, sd 55 */
    CHECK(abs(hits[j] - 4000) < 300, "top member %d drawn %d times", j, hits[j]);
  for (int j = 4; j < 16; j++)
    CHECK(hits[j] == 0, "member %d is no donor", j);
  pbt_exploit(l6, 16, 0.25, 77, donor);
  pbt_exploit(l6, 16, 0.25, 77, again);
  CHECK(memcmp(donor, again, sizeof again) == 0, "same seed, same draw");
}

static const char space_yaml_[] =
    "study:\n"
    "  seed: 3\n"
    "  objective: {function: branin, direction: minimize}\n"
    "  sampler: random\n"
    "  scheduler: {name: pbt, population: 6, interval: 2, resample_probability: 0.25,\n"
    "              factors: [0.8, 1.2]}\n"
    "train: {epochs: 6}\n"
    "parameters:\n"
    "  x0: {distribution: uniform, min: -5, max: 10}\n"
    "  x1: {distribution: log_uniform, min: 0.01, max: 15}\n";

static void test_explore(void) {
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, space_yaml_, NULL, "pbt.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(s.generations == 3 && s.total == 18, "generations %d total %d", s.generations, s.total);
  double from[FOX_SPACE_MAX], x[FOX_SPACE_MAX];
  for (int i = 0; i < FOX_SPACE_MAX; i++)
    from[i] = NAN;
  int factor = 0, resampled = 0, n = 4000, outside = 0;
  for (int k = 0; k < n; k++) {
    from[0] = -4.5 + (k % 7) * 2.0; /* near both ends too */
    from[1] = 0.011 + (k % 5) * 3.0;
    pbt_explore(&s.cfg.study, &s.space, from, (uint64_t)k, x);
    for (int i = 0; i < 2; i++) {
      const struct space_param *p = &s.space.p[i];
      outside += !(x[i] >= p->lo && x[i] <= p->hi);
      double up = fmin(fmax(from[i] * 1.2, p->lo), p->hi);
      double down = fmin(fmax(from[i] * 0.8, p->lo), p->hi);
      if (x[i] == up || x[i] == down)
        factor++;
      else
        resampled++;
    }
  }
  CHECK(outside == 0, "%d values outside their ranges", outside);
  double share = (double)resampled / (2.0 * n); /* 8000 draws: sd 0.005 */
  CHECK(fabs(share - 0.25) < 0.02, "resampled %.4f, expected 0.25", share);
  CHECK(factor + resampled == 2 * n, "every move is a factor or a resample");
  /* clamping: 9.5 * 1.2 stays at 10 (Ray lets it leave the range: ray #11936) */
  s.cfg.study.resample_probability = 0;
  from[0] = 9.5;
  from[1] = 14.0;
  int clamped = 0;
  for (int k = 0; k < 200; k++) {
    pbt_explore(&s.cfg.study, &s.space, from, (uint64_t)k, x);
    clamped += x[0] == 10.0;
    CHECK(x[0] == 10.0 || x[0] == 9.5 * 0.8, "x0 %.17g", x[0]);
    CHECK(x[1] == 15.0 || fabs(x[1] - 14.0 * 0.8) < 1e-12, "x1 %.17g", x[1]);
  }
  CHECK(clamped > 60 && clamped < 140, "clamped %d of 200", clamped);
  /* a factor of 1 with no resample: nothing moves */
  s.cfg.study.factors[0] = s.cfg.study.factors[1] = 1.0;
  from[0] = 1.25;
  from[1] = 0.5;
  pbt_explore(&s.cfg.study, &s.space, from, 5, x);
  CHECK(x[0] == 1.25 && x[1] == 0.5, "factor 1 moved %g %g", x[0], x[1]);
  study_free(&s);

  /* categorical: a neighbour (an end stays or moves in), fixed and integers */
  static const char cat_yaml[] =
      "study:\n"
      "  objective: {function: branin, direction: minimize}\n"
      "  scheduler: {name: pbt, population: 4, interval: 1, resample_probability: 0}\n"
      "train: {epochs: 3}\n"
      "parameters:\n"
      "  x0: {distribution: categorical, values: [1, 2, 3, 4, 5]}\n"
      "  x1: {distribution: int_uniform, min: 1, max: 9}\n";
  rc = study_create_text(&s, cat_yaml, NULL, "cat.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  int moves[3] = {0}; /* -1, 0, +1 from index 2 */
  for (int k = 0; k < 400; k++) {
    from[0] = 2;
    from[1] = 5;
    pbt_explore(&s.cfg.study, &s.space, from, (uint64_t)k, x);
    int d = (int)x[0] - 2;
    CHECK(d == -1 || d == 1, "categorical moved by %d", d);
    if (d >= -1 && d <= 1)
      moves[d + 1]++;
    CHECK(x[1] == 6 || x[1] == 4, "int 5 x 1.2 = 6, 5 x 0.8 = 4: got %g", x[1]);
    from[0] = 0;
    pbt_explore(&s.cfg.study, &s.space, from, (uint64_t)k, x);
    CHECK(x[0] == 0 || x[0] == 1, "an end moves in or stays: %g", x[0]);
  }
  CHECK(moves[0] > 150 && moves[2] > 150, "down %d up %d", moves[0], moves[2]);
  /* a small integer that a factor would round back to itself moves one step (Ray truncates:
   * int(2 x 0.8) = 1); at the range's end it stays */
  int down = 0, up = 0;
  for (int k = 0; k < 200; k++) {
    from[0] = 2;
    from[1] = 2;
    pbt_explore(&s.cfg.study, &s.space, from, (uint64_t)k, x);
    CHECK(x[1] == 1 || x[1] == 3, "int 2 moved to %g", x[1]);
    down += x[1] == 1, up += x[1] == 3;
    from[1] = 1;
    pbt_explore(&s.cfg.study, &s.space, from, (uint64_t)k, x);
    CHECK(x[1] == 1 || x[1] == 2, "int 1 moved to %g", x[1]);
  }
  CHECK(down > 60 && up > 60, "int 2: down %d up %d", down, up);
  study_free(&s);
  /* a grid without 0 (-1, -0.7, ..., -0.1, 0.2, ...): a step never crosses 0 nor grows a value
   * under a factor below 1 */
  static const char q_yaml[] =
      "study:\n"
      "  objective: {function: branin, direction: minimize}\n"
      "  scheduler: {name: pbt, population: 4, interval: 1, resample_probability: 0}\n"
      "train: {epochs: 3}\n"
      "parameters:\n"
      "  x0: {distribution: q_uniform, min: -1, max: 1, q: 0.3}\n"
      "  x1: {distribution: uniform, min: 0, max: 15}\n";
  rc = study_create_text(&s, q_yaml, NULL, "q.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  static const double grid[] = {-1, -0.7, -0.4, -0.1, 0.2, 0.5, 0.8};
  int stepped = 0;
  for (int g = 0; g < 7; g++)
    for (int k = 0; k < 50; k++) {
      from[0] = space_snap(&s.space.p[0], -1 + g * 0.3); /* the grid point itself */
      from[1] = 5;
      pbt_explore(&s.cfg.study, &s.space, from, (uint64_t)k, x);
      int on = 0;
      for (int j = 0; j < 7; j++)
        on |= fabs(x[0] - grid[j]) < 1e-9;
      CHECK(on && x[0] * from[0] >= 0, "%g -> %g", from[0], x[0]);
      stepped += fabs(x[0] - from[0]) > 0.29 && fabs(x[0] - from[0]) < 0.31 &&
                 fabs(fabs(from[0]) * 1.2 - fabs(x[0])) > 0.05; /* a step, not a product */
    }
  CHECK(stepped > 50, "%d steps", stepped);
  study_free(&s);
}

/* An agent study driven by fabricated values (nothing trains: the study only hands out work
 * and records results): 4 members, 3 generations of 1, 1, 1 epochs. */
static void test_study(void) {
  static const char yaml[] =
      "study:\n"
      "  seed: 11\n"
      "  objective: {metric: val.total_return, direction: minimize}\n"
      "  sampler: random\n"
      "  scheduler: {name: pbt, population: 4, interval: 1}\n"
      "train: {epochs: 3}\n"
      "parameters:\n"
      "  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}\n"
      "  dqn.gamma: {distribution: uniform, min: 0.9, max: 0.999}\n";
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, yaml, NULL, "pbt.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return;
  CHECK(study_max_items(&s) == 4, "max items %d", study_max_items(&s));
  struct work_item items[8];
  struct work_result res[8];
  /* values by member per generation; member 2 fails in generation 0 */
  static const double val[3][4] = {{3, 1, 0, 2}, {5, 4, 6, 0.5}, {1, 1, 1, 1}};
  for (int g = 0; g < 3; g++) {
    int n = -1;
    rc = study_next_work(&s, items, &n, &e);
    CHECK(rc == 0 && n == 4, "generation %d: %d items (%s)", g, n, e.msg);
    if (rc != 0 || n != 4)
      break;
    for (int j = 0; j < n; j++) {
      const struct work_item *w = &items[j];
      const struct study_trial *t = &s.trials[w->trial];
      CHECK(w->trial == g * 4 + j && t->member == j && t->generation == g,
            "gen %d item %d: trial %d member %d", g, j, w->trial, t->member);
      CHECK(w->from_epochs == g && w->to_epochs == g + 1, "epochs %d -> %d", w->from_epochs,
            w->to_epochs);
      CHECK(w->keep_state == (g < 2) && w->hold_state == (g < 2), "keep %d", w->keep_state);
      CHECK(w->from_trial == (g ? t->parent : t->id), "from %d parent %d", w->from_trial,
            t->parent);
      /* the parent ran on rank 10 + member in this run: its state is held there */
      CHECK(w->src_rank == (g ? 10 + s.trials[t->parent].member : -1), "src %d", w->src_rank);
      if (g == 1 && j == 2)
        CHECK(t->exploited && s.trials[t->parent].id != 2, "the failed member copies");
      if (g > 0 && !t->exploited)
        CHECK(t->parent == t->id - 4 && memcmp(t->x, s.trials[t->parent].x, sizeof t->x) == 0,
              "a kept member keeps its parameters");
      memset(&res[j], 0, sizeof res[j]);
      res[j].trial = w->trial;
      res[j].repeat = w->repeat;
      res[j].done = FOX_WORK_DONE;
      int fail = g == 0 && j == 2;
      res[j].status = fail ? FOX_ST_FAILED : FOX_ST_RUNNING;
      res[j].epochs = fail ? 0 : w->to_epochs;
      res[j].rank = 10 + j;
      for (int f = 0; f < FOX_FOLDS_MAX; f++)
        for (int m = 0; m < FOX_STUDY_METRICS; m++)
          res[j].metrics[f][m] = fail ? NAN : val[g][j];
    }
    study_record(&s, res, n);
  }
  /* generation 1: k = 1; ranking of generation 0: 1 (1), 3 (2), 0 (3), 2 failed: the bottom
   * one is the failed member 2, which copies member 1 (the only top member) */
  const struct study_trial *t6 = &s.trials[6];
  CHECK(t6->exploited && t6->parent == 1, "gen 1: 6 <- %d (%d)", t6->parent, t6->exploited);
  CHECK(!s.trials[4].exploited && !s.trials[5].exploited && !s.trials[7].exploited,
        "gen 1 keeps 0, 1 and 3");
  /* generation 2 from generation 1's values 5 4 6 0.5: top member 3 (row 7), bottom member 2 */
  CHECK(s.trials[10].exploited && s.trials[10].parent == 7, "gen 2: 10 <- %d",
        s.trials[10].parent);
  int n = -1;
  rc = study_next_work(&s, items, &n, &e);
  CHECK(rc == 0 && n == 0 && study_finished(&s), "finished (%d items)", n);
  CHECK(study_best(&s) == 8, "best %d: the last generation's, ties to the lower id",
        study_best(&s));
  for (int m = 0; m < 4; m++) /* each member's run over its generations: 3 epochs */
    CHECK(study_recorded_epochs(&s, m, 0, 1) == 3, "member %d: recorded %d", m,
          study_recorded_epochs(&s, m, 0, 1));
  int ids[3];
  CHECK(pbt_lineage(&s, 10, ids) == 3 && ids[0] == 3 && ids[1] == 7 && ids[2] == 10,
        "lineage of 10: %d %d %d", ids[0], ids[1], ids[2]);
  study_free(&s);

  /* a test function has no state: nothing is held, so nothing is placed or moved */
  rc = study_create_text(&s, space_yaml_, NULL, "f.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  for (int g = 0; rc == 0 && g < 2; g++) {
    int n = -1;
    rc = study_next_work(&s, items, &n, &e);
    for (int j = 0; rc == 0 && j < n; j++) {
      CHECK(items[j].src_rank == -1 && items[j].buffers_rank == -1, "function: src %d",
            items[j].src_rank);
      res[j] = (struct work_result){.trial = items[j].trial, .done = FOX_WORK_DONE,
                                    .status = FOX_ST_RUNNING, .epochs = items[j].to_epochs,
                                    .rank = 5};
      for (int f = 0; f < FOX_FOLDS_MAX; f++)
        for (int m = 0; m < FOX_STUDY_METRICS; m++)
          res[j].metrics[f][m] = j;
    }
    study_record(&s, res, n);
  }
  if (rc == 0)
    study_free(&s);
}

static void test_refusals(void) {
  static const struct {
    const char *extra, *want;
  } c[] = {
      {"  dqn.activation: {distribution: categorical, values: [relu, tanh]}\n",
       "parameters.dqn.activation: cannot be searched under study.scheduler.name = pbt"},
      {"  dqn.buffer_size: {distribution: int_uniform, min: 1000, max: 2000}\n",
       "parameters.dqn.buffer_size: cannot be searched"},
      {"  env.num_envs: {distribution: categorical, values: [8, 16]}\n",
       "parameters.env.num_envs: cannot be searched"},
      {"  ppo.value_loss: {distribution: categorical, values: [max, unclipped]}\n"
       "  ppo.lr: {value: 1e-3}\n  train.algo: {distribution: categorical, values: [dqn, ppo]}\n",
       "parameters.ppo.value_loss: cannot be searched"},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "study:\n  scheduler: {name: pbt, population: 4}\ntrain: {epochs: 3}\n"
             "parameters:\n  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}\n%s",
             c[i].extra);
    struct study s;
    struct fox_err e = {0};
    int rc = study_create_text(&s, yaml, NULL, "r.yaml", &e);
    CHECK(rc == FOX_EUSAGE && strstr(e.msg, c[i].want) && strstr(e.msg, "r.yaml:"),
          "case %zu: rc %d: %s", i, rc, e.msg);
    if (rc == 0)
      study_free(&s);
  }
  /* a fixed value is fine */
  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s,
                             "study:\n  scheduler: {name: pbt, population: 4}\n"
                             "train: {epochs: 3}\nparameters:\n"
                             "  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}\n"
                             "  dqn.hidden: {value: [32, 32]}\n",
                             NULL, "ok.yaml", &e);
  CHECK(rc == 0, "value: accepted: %s", e.msg);
  if (rc == 0)
    study_free(&s);
  /* one generation, several objectives, a bad factor list */
  static const char *const bad[] = {
      "study:\n  scheduler: {name: pbt, interval: 3}\ntrain: {epochs: 3}\n",
      "study:\n  objective: [{metric: val.sharpe}, {metric: val.max_drawdown}]\n"
      "  scheduler: {name: pbt}\ntrain: {epochs: 3}\n",
      "study:\n  scheduler: {name: pbt, factors: [0.8, -1]}\ntrain: {epochs: 3}\n",
      "study:\n  scheduler: {name: pbt, factors: []}\ntrain: {epochs: 3}\n",
      "study:\n  scheduler: {name: pbt, quantile: 0.75}\ntrain: {epochs: 3}\n",
      "study:\n  scheduler: {name: pbt, population: 1}\ntrain: {epochs: 3}\n",
  };
  static const char *const why[] = {"one generation", "PBT ranks members by one objective",
                                    "study.scheduler.factors", "study.scheduler.factors",
                                    "study.scheduler.quantile", "study.scheduler.population"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char yaml[512];
    snprintf(yaml, sizeof yaml, "%sparameters:\n  dqn.lr: {distribution: uniform, min: 0.001, "
                                "max: 0.01}\n", bad[i]);
    fox_err_clear(&e);
    rc = study_create_text(&s, yaml, NULL, "b.yaml", &e);
    CHECK(rc == FOX_EUSAGE && strstr(e.msg, why[i]), "bad %zu: rc %d: %s", i, rc, e.msg);
    if (rc == 0)
      study_free(&s);
  }
  /* another scheduler's keys: refused when a study starts (study_create, from its file),
   * never when a stored one is read back (study_create_text, as study_load does); scheduler
   * none takes any */
  static const struct {
    const char *sched, *why;
    int refused;
  } other[] = {{"{name: pbt, eta: 2}", "study.scheduler.eta does not apply to scheduler pbt", 1},
               {"{name: successive_halving, population: 6}",
                "study.scheduler.population does not apply to scheduler successive_halving", 1},
               {"{name: hyperband, factors: [0.5, 2]}", "study.scheduler.factors", 1},
               {"{name: none, population: 6, eta: 4}", "", 0},
               /* by presence: a value equal to the default is as ignored as any other */
               {"{name: pbt, eta: 3, max_epochs: 0}", "study.scheduler.max_epochs does not apply",
                1},
               {"{name: successive_halving, population: 8}", "study.scheduler.population", 1},
               {"{name: hyperband, copy_buffers: true}", "study.scheduler.copy_buffers", 1},
               {"{name: successive_halving, eta: 3, min_epochs: 1}", "", 0}};
  char path[64];
  snprintf(path, sizeof path, "/tmp/fox_pbt_%ld.yaml", (long)getpid());
  for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
    char yaml[512];
    snprintf(yaml, sizeof yaml, "study:\n  scheduler: %s\ntrain: {epochs: 3}\nparameters:\n"
                                "  dqn.lr: {distribution: uniform, min: 0.001, max: 0.01}\n",
             other[i].sched);
    FILE *f = fopen(path, "w");
    fputs(yaml, f);
    fclose(f);
    fox_err_clear(&e);
    rc = study_create(&s, path, NULL, 0, &e);
    CHECK(other[i].refused ? rc == FOX_EUSAGE && strstr(e.msg, other[i].why) &&
                                 strstr(e.msg, path)
                           : rc == 0,
          "%s: rc %d: %s", other[i].sched, rc, e.msg);
    if (rc == 0)
      study_free(&s);
    fox_err_clear(&e);
    rc = study_create_text(&s, yaml, NULL, "stored", &e);
    CHECK(rc == 0, "%s read back: %s", other[i].sched, e.msg);
    if (rc == 0)
      study_free(&s);
  }
  /* A whole dump (a trial file's config) starts a study under any scheduler: it leaves out the
   * keys its own scheduler does not use while they hold their defaults. */
  {
    struct config dc;
    config_defaults(&dc);
    dc.epochs = 4;
    FILE *f = fopen(path, "w");
    config_dump(&dc, f);
    fputs("parameters:\n  dqn.lr: {distribution: uniform, min: 0.001, max: 0.01}\n", f);
    fclose(f);
    static const char *const switched[][2] = {{"study.scheduler.name=successive_halving", NULL},
                                              {"study.scheduler.name=hyperband", NULL},
                                              {"study.scheduler.name=pbt", NULL}};
    for (size_t i = 0; i < 3; i++) {
      fox_err_clear(&e);
      rc = study_create(&s, path, switched[i], 1, &e);
      CHECK(rc == 0, "a dumped config under --set %s: %s", switched[i][0], e.msg);
      if (rc == 0)
        study_free(&s);
    }
  }
  /* a --set counts as given too, even at the default value */
  {
    FILE *f = fopen(path, "w");
    fputs("study:\n  scheduler: {name: successive_halving}\ntrain: {epochs: 3}\nparameters:\n"
          "  dqn.lr: {distribution: uniform, min: 0.001, max: 0.01}\n", f);
    fclose(f);
    fox_err_clear(&e);
    const char *sets[] = {"study.scheduler.quantile=0.25"};
    rc = study_create(&s, path, sets, 1, &e);
    CHECK(rc == FOX_EUSAGE && strstr(e.msg, "study.scheduler.quantile does not apply"),
          "--set quantile at its default: rc %d: %s", rc, e.msg);
    if (rc == 0)
      study_free(&s);
  }
  remove(path);
  fox_err_clear(&e);
  rc = study_create_text(&s, "study:\n  scheduler: {name: pbt}\ntrain: {epochs: 3}\n"
                             "parameters:\n  train.epochs: {values: [2, 3]}\n",
                         NULL, "ep.yaml", &e);
  CHECK(rc == FOX_EUSAGE && strstr(e.msg, "train.epochs itself for none and pbt"),
        "train.epochs: rc %d: %s", rc, e.msg);
  if (rc == 0)
    study_free(&s);
}

int main(void) {
  test_quantile();
  test_exploit();
  test_explore();
  test_study();
  test_refusals();
  return fox_check_done("test_pbt");
}
