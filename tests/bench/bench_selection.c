/* What the report's selection figures cost as a study grows: the per-bar Sharpe moments of N
 * configurations and CSCV's PBO over S blocks, on T = 78,840 returns (the val split of a year
 * of minute bars at 0.15) of synthetic returns. The reference run in the same binary is the
 * straightforward CSCV, each split's Sharpe recomputed from its rows (what the paper and
 * tests/ref/selection_ref.py do), at the sizes where it finishes in seconds; the ratio is the
 * speed-up of selection.c's per-block (count, mean, M2) merge. Also the return matrix's bytes,
 * which `foxopt report` holds in memory (T x N doubles).
 *   bench_selection [OUT.json] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/selection.h"
#include "util/rng.h"

static double now_(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Returns of N strategies: a common market factor plus each one's own noise, ~1e-4 a bar. */
static double *matrix_(long t, int n) {
  double *m = malloc((size_t)t * (size_t)n * sizeof *m);
  if (!m)
    return NULL;
  struct rng g;
  rng_seed(&g, 42);
  for (long k = 0; k < t; k++) {
    double common = 1e-4 * rng_normal(&g);
    for (int j = 0; j < n; j++)
      m[(size_t)k * (size_t)n + (size_t)j] = common + 5e-5 * rng_normal(&g) + 1e-7 * j;
  }
  return m;
}

/* The naive CSCV: every split's Sharpe from its rows, two passes. Returns the PBO. */
static double naive_pbo_(const double *m, long t, int n, int s) {
  long L = t / s, drop = t % s;
  int half = s / 2, c[32];
  for (int i = 0; i < half; i++)
    c[i] = i;
  long combos = 0, overfit = 0;
  double *isr = malloc((size_t)n * sizeof *isr), *osr = malloc((size_t)n * sizeof *osr);
  do {
    int in[32] = {0};
    for (int i = 0; i < half; i++)
      in[c[i]] = 1;
    for (int side = 0; side < 2; side++)
      for (int j = 0; j < n; j++) {
        double sum = 0, ss = 0;
        long cnt = 0;
        for (int b = 0; b < s; b++)
          if (in[b] == !side)
            for (long k = drop + b * L; k < drop + (b + 1) * L; k++)
              sum += m[(size_t)k * (size_t)n + (size_t)j], cnt++;
        double mean = sum / cnt;
        for (int b = 0; b < s; b++)
          if (in[b] == !side)
            for (long k = drop + b * L; k < drop + (b + 1) * L; k++) {
              double d = m[(size_t)k * (size_t)n + (size_t)j] - mean;
              ss += d * d;
            }
        double sd = sqrt(ss / (cnt - 1));
        (side ? osr : isr)[j] = sd > 0 ? mean / sd : 0;
      }
    int best = 0;
    for (int j = 1; j < n; j++)
      best = isr[j] > isr[best] ? j : best;
    double below = 0;
    for (int j = 0; j < n; j++)
      below += osr[j] < osr[best] ? 1 : osr[j] == osr[best] && j != best ? 0.5 : 0;
    double w = (below + 1) / (n + 1);
    overfit += log(w / (1 - w)) <= 0;
    combos++;
  } while (selection_combo_next(c, half, s));
  free(isr), free(osr);
  return (double)overfit / (double)combos;
}

int main(int argc, char **argv) {
  const long T = 78840;
  static const int ns[] = {10, 100, 500};
  static const int ss[] = {8, 16};
  FILE *js = argc > 1 ? fopen(argv[1], "w") : NULL;
  if (argc > 1 && !js) {
    fprintf(stderr, "bench_selection: cannot write %s\n", argv[1]);
    return 1;
  }
  printf("# T = %ld returns; seconds, best of 3; naive = each split's Sharpe from its rows\n", T);
  printf("%-6s %-4s %-9s %12s %12s %12s %10s %12s\n", "N", "S", "splits", "moments_s", "pbo_s",
         "naive_s", "speedup", "matrix_MB");
  if (js)
    fprintf(js, "{\"T\": %ld, \"runs\": [", T);
  int first = 1;
  for (size_t a = 0; a < sizeof ns / sizeof *ns; a++) {
    int n = ns[a];
    double *m = matrix_(T, n);
    double *col = malloc((size_t)T * sizeof *col);
    if (!m || !col) {
      fprintf(stderr, "bench_selection: out of memory\n");
      return 1;
    }
    double tm = 1e30;
    for (int rep = 0; rep < 3; rep++) {
      double t0 = now_();
      for (int j = 0; j < n; j++) {
        for (long k = 0; k < T; k++)
          col[k] = m[(size_t)k * (size_t)n + (size_t)j];
        struct sr_moments mo;
        struct fox_err e = {0};
        if (selection_moments(col, T, &mo, &e) != 0) {
          fprintf(stderr, "%s\n", e.msg);
          return 1;
        }
      }
      double dt = now_() - t0;
      tm = dt < tm ? dt : tm;
    }
    for (size_t b = 0; b < sizeof ss / sizeof *ss; b++) {
      int s = ss[b];
      double tp = 1e30, pbo = NAN;
      long combos = 0;
      for (int rep = 0; rep < 3; rep++) {
        struct pbo_result r;
        struct fox_err e = {0};
        double t0 = now_();
        if (selection_pbo(m, T, n, s, &r, &e) != 0) {
          fprintf(stderr, "%s\n", e.msg);
          return 1;
        }
        double dt = now_() - t0;
        tp = dt < tp ? dt : tp;
        pbo = r.pbo, combos = r.combos;
        selection_pbo_free(&r);
      }
      /* the naive reference only where it takes seconds, not hours */
      double tn = NAN;
      if ((double)combos * n < 1e4) {
        double t0 = now_();
        double p2 = naive_pbo_(m, T, n, s);
        tn = now_() - t0;
        if (p2 != pbo) {
          fprintf(stderr, "bench_selection: naive PBO %.17g != %.17g (N %d, S %d)\n", p2, pbo, n,
                  s);
          return 1;
        }
      }
      double mb = (double)T * n * sizeof(double) / 1e6;
      printf("%-6d %-4d %-9ld %12.4f %12.4f %12.4f %10.1f %12.1f\n", n, s, combos, tm, tp, tn,
             tn / tp, mb);
      char naive[32] = "null";
      if (!isnan(tn))
        snprintf(naive, sizeof naive, "%.6g", tn);
      if (js)
        fprintf(js, "%s{\"n\": %d, \"s\": %d, \"splits\": %ld, \"moments_s\": %.6g, "
                    "\"pbo_s\": %.6g, \"naive_s\": %s, \"matrix_mb\": %.1f}",
                first ? "" : ", ", n, s, combos, tm, tp, naive, mb);
      first = 0;
    }
    free(m);
    free(col);
  }
  if (js) {
    fprintf(js, "]}\n");
    fclose(js);
  }
  return 0;
}
