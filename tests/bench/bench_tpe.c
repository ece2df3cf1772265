/* TPE benchmark, foxopt's side: best value found on the test functions (median and quartiles
 * over seeds) by TPE (multivariate and independent) and random search, and the time of one TPE
 * proposal after a long history. tests/bench/bench_tpe.sh sets it beside Optuna's figures.
 *   bench_tpe [--seeds 20] [--trials 100] [--history 1000] [--json OUT.json] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "study/objective.h"
#include "search/sampler.h"
#include "search/space.h"
#include "study_spaces.h"

struct variant_ {
  const char *name;
  const struct sampler_ops *ops;
  int multivariate;
};

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* numpy.percentile's default (linear between order statistics) of sorted v[n]. */
static double percentile_(const double *v, int n, double p) {
  double h = (n - 1) * p / 100.0;
  int lo = (int)floor(h);
  return lo + 1 < n ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

static double evaluate_(const struct space *sp, const struct test_function *tf, const double *x) {
  double args[8];
  for (int i = 0; i < sp->n; i++) /* keys are the function's variables x0, x1, ... */
    args[atoi(sp->p[i].key + 1)] = space_number(&sp->p[i], x[i]);
  return tf->f(args);
}

/* One study: `trials` sequential proposals (round size 1); returns the best value. */
static double run_study_(const struct sampler_ops *ops, const struct tpe_config *tc,
                         const struct space *sp, const struct test_function *tf, uint64_t seed,
                         int trials, double *xs, struct seen_trial *hist) {
  double best = INFINITY;
  for (int t = 0; t < trials; t++) {
    double *x = xs + (size_t)t * sp->n;
    struct fox_err e = {0};
    if (ops->propose(tc, sp, hist, t, rng_hash2(seed, (uint64_t)t), x, &e) != 0) {
      fprintf(stderr, "bench_tpe: %s\n", e.msg);
      exit(1);
    }
    double f = evaluate_(sp, tf, x);
    hist[t] = (struct seen_trial){x, FOX_SEEN_COMPLETE, f, 0};
    best = f < best ? f : best;
  }
  return best;
}

/* Seconds per proposal after `history` random trials (all complete). */
static double time_proposal_(const struct tpe_config *tc, const struct space *sp,
                             const struct test_function *tf, int history, double *xs,
                             struct seen_trial *hist) {
  for (int t = 0; t < history; t++) {
    double *x = xs + (size_t)t * sp->n;
    struct rng r;
    rng_seed(&r, rng_hash2(99, (uint64_t)t));
    for (int i = 0; i < sp->n; i++)
      x[i] = space_sample_uniform(sp, i, &r);
    hist[t] = (struct seen_trial){x, FOX_SEEN_COMPLETE, evaluate_(sp, tf, x), 0};
  }
  double out[FOX_SPACE_MAX];
  int reps = 0;
  double t0 = now_(), t1;
  do {
    struct fox_err e = {0};
    if (sampler_tpe_ops.propose(tc, sp, hist, history, rng_hash2(7, (uint64_t)reps), out, &e)) {
      fprintf(stderr, "bench_tpe: %s\n", e.msg);
      exit(1);
    }
    reps++;
    t1 = now_();
  } while (reps < 20 || t1 - t0 < 1.0);
  return (t1 - t0) / reps;
}

int main(int argc, char **argv) {
  int seeds = 20, trials = 100, history = 1000;
  const char *json = NULL;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--seeds") && a + 1 < argc)
      seeds = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--trials") && a + 1 < argc)
      trials = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--history") && a + 1 < argc)
      history = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--json") && a + 1 < argc)
      json = argv[++a];
    else {
      fprintf(stderr, "usage: bench_tpe [--seeds N] [--trials T] [--history H] [--json OUT]\n");
      return 2;
    }
  }
  if (seeds < 1 || trials < 1 || history < 1) {
    fprintf(stderr, "bench_tpe: --seeds, --trials and --history must be >= 1\n");
    return 2;
  }
  const struct variant_ variants[] = {{"tpe", &sampler_tpe_ops, 1},
                                      {"tpe-indep", &sampler_tpe_ops, 0},
                                      {"random", &sampler_random_ops, 1}};
  int nv = (int)(sizeof variants / sizeof *variants), cap = trials > history ? trials : history;
  double *xs = malloc((size_t)cap * FOX_SPACE_MAX * sizeof *xs);
  struct seen_trial *hist = malloc((size_t)cap * sizeof *hist);
  double *best = malloc((size_t)seeds * sizeof *best);
  FILE *jf = json ? fopen(json, "w") : NULL;
  if (!xs || !hist || !best || (json && !jf)) {
    fprintf(stderr, "bench_tpe: out of memory or cannot write %s\n", json ? json : "");
    return 1;
  }
  printf("# foxopt TPE benchmark: %d seeds x %d trials (sequential), one core\n", seeds, trials);
  printf("# %-10s %-10s %14s %14s %14s %16s\n", "function", "sampler", "median best", "q25",
         "q75", "ms/proposal");
  if (jf)
    fprintf(jf, "{\"seeds\": %d, \"trials\": %d, \"history\": %d, \"results\": [", seeds,
            trials, history);
  int first = 1;
  for (int k = 1; k <= 3; k++) {
    const struct test_function *tf = objective_function(k);
    struct config base;
    config_defaults(&base);
    base.study.function = k;
    struct space sp;
    struct fox_err e = {0};
    if (space_load_text(&sp, study_space_yaml[k - 1], tf->name, &base, &e) != 0) {
      fprintf(stderr, "bench_tpe: %s\n", e.msg);
      return 1;
    }
    for (int v = 0; v < nv; v++) {
      struct tpe_config tc = base.study.tpe;
      tc.multivariate = variants[v].multivariate;
      for (int s = 0; s < seeds; s++)
        best[s] = run_study_(variants[v].ops, &tc, &sp, tf, (uint64_t)s, trials, xs, hist);
      double ms = variants[v].ops == &sampler_tpe_ops
                      ? 1e3 * time_proposal_(&tc, &sp, tf, history, xs, hist)
                      : NAN;
      qsort(best, (size_t)seeds, sizeof *best, cmp_double_);
      double med = percentile_(best, seeds, 50), q25 = percentile_(best, seeds, 25),
             q75 = percentile_(best, seeds, 75);
      printf("  %-10s %-10s %14.6f %14.6f %14.6f %16.3f\n", tf->name, variants[v].name, med,
             q25, q75, ms);
      fflush(stdout);
      if (jf) {
        fprintf(jf, "%s\n  {\"function\": \"%s\", \"sampler\": \"%s\", \"median\": %.17g, "
                    "\"q25\": %.17g, \"q75\": %.17g, \"ms_per_proposal\": ",
                first ? "" : ",", tf->name, variants[v].name, med, q25, q75);
        if (isnan(ms))
          fprintf(jf, "null");
        else
          fprintf(jf, "%.6g", ms);
        fprintf(jf, ", \"best\": [");
        for (int s = 0; s < seeds; s++)
          fprintf(jf, "%s%.17g", s ? ", " : "", best[s]);
        fprintf(jf, "]}");
        first = 0;
      }
    }
  }
  if (jf) {
    fprintf(jf, "\n]}\n");
    fclose(jf);
  }
  free(xs);
  free(hist);
  free(best);
  return 0;
}
