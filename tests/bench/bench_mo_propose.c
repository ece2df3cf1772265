/* The time of one multi-objective proposal, foxopt's side: nsga2 and tpe asked for the next
 * trial after a history of H complete ZDT1 trials (30 variables in [0, 1], two objectives; for
 * nsga2 in generations of 50), in memory, as tests/bench/bench_mo.sh's Optuna side times
 * Optuna's samplers after the same history. bench_mo.sh's per-trial figure is a whole
 * `foxopt run` (process, files); this one is the sampler alone.
 *   bench_mo_propose [--history 300] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "study/objective.h"
#include "search/sampler.h"
#include "search/space.h"
#include "util/rng.h"

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  int history = 300;
  for (int a = 1; a < argc; a++)
    if (!strcmp(argv[a], "--history") && a + 1 < argc)
      history = atoi(argv[++a]);
  if (history < 1) {
    fprintf(stderr, "usage: bench_mo_propose [--history H >= 1]\n");
    return 2;
  }
  const struct test_function *tf = NULL;
  int which = 0;
  for (int i = 1; config_function_names[i]; i++)
    if (!strcmp(config_function_names[i], "zdt1"))
      tf = objective_function(which = i);
  char yaml[4096] = "parameters:\n";
  for (int i = 0; i < 30; i++)
    snprintf(yaml + strlen(yaml), sizeof yaml - strlen(yaml),
             "  x%d: {distribution: uniform, min: 0, max: 1}\n", i);
  struct config cfg;
  config_defaults(&cfg);
  cfg.study.function = which; /* the space names the function's variables */
  struct space sp;
  struct fox_err e = {0};
  if (!tf || space_load_text(&sp, yaml, "zdt1", &cfg, &e) != 0) {
    fprintf(stderr, "bench_mo_propose: %s\n", tf ? e.msg : "no zdt1");
    return 1;
  }
  double *xs = malloc((size_t)history * (size_t)sp.n * sizeof *xs);
  struct seen_trial *hist = calloc((size_t)history, sizeof *hist);
  if (!xs || !hist)
    return 1;
  for (int t = 0; t < history; t++) {
    double *x = xs + (size_t)t * sp.n, out[8];
    struct rng r;
    rng_seed(&r, rng_hash2(99, (uint64_t)t));
    for (int i = 0; i < sp.n; i++)
      x[i] = space_sample_uniform(&sp, i, &r);
    objective_eval(tf, x, out);
    hist[t] = (struct seen_trial){x, FOX_SEEN_COMPLETE, out[0], 0};
    hist[t].round = t / cfg.study.tpe.population_size;
    hist[t].n_obj = 2;
    hist[t].values[0] = out[0];
    hist[t].values[1] = out[1];
  }
  const struct sampler_ops *ops[2] = {&sampler_nsga2_ops, &sampler_tpe_ops};
  printf("# one proposal after %d complete ZDT1 trials (30 variables, 2 objectives), one core\n",
         history);
  printf("%-8s %14s %8s\n", "sampler", "ms/proposal", "reps");
  for (int k = 0; k < 2; k++) {
    double out[FOX_SPACE_MAX], t0 = now_(), t1;
    int reps = 0;
    do {
      if (ops[k]->propose(&cfg.study.tpe, &sp, hist, history, rng_hash2(7, (uint64_t)reps), out,
                          &e)) {
        fprintf(stderr, "bench_mo_propose: %s: %s\n", ops[k]->name, e.msg);
        return 1;
      }
      reps++;
      t1 = now_();
    } while (reps < 5 || t1 - t0 < 1.0);
    printf("%-8s %14.3f %8d\n", ops[k]->name, 1e3 * (t1 - t0) / reps, reps);
  }
  free(xs);
  free(hist);
  return 0;
}
