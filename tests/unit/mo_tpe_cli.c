/* Test driver for src/search/hypervolume.c and the multi-objective TPE split (tpe.c), read by
 * tests/e2e/mo_tpe_ref.py, which computes the same with Optuna's own functions. Commands on
 * stdin, whitespace-separated numbers; one line out per command:
 *   hv M N REF[M] POINTS[N*M]            -> the hypervolume (%.17g)
 *   hssp M N K REF[M] POINTS[N*M]        -> the K chosen indices, ascending
 *   split M N GAMMA then N rows of STATE VIOLATION VALUES[M] X
 *     (STATE: 0 complete, 1 pruned, 2 failed, 3 running; X: one parameter in [0, 1])
 *                                        -> the side of each trial (1 good, 0 rest, -1 unused),
 *        then the good and the rest estimators' mixture weights, the prior's last
 * Exit 0, 1 on a malformed input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "search/hypervolume.h"
#include "search/parzen.h"
#include "search/tpe.h"

static int read_n_(double *x, int n) {
  for (int i = 0; i < n; i++)
    if (scanf("%lf", &x[i]) != 1)
      return -1;
  return 0;
}

static void weights_(const struct seen_trial *h, int n, const signed char *side, int want,
                     int mo) {
  struct parzen_dim d = {0, 0.0, 1.0, 0.0, 0};
  double *obs = malloc((size_t)(n + 1) * sizeof *obs), *ones = malloc((size_t)(n + 1) * sizeof *ones);
  int p0 = 0, k = tpe_gather(h, n, side, want, &p0, 1, obs);
  for (int i = 0; i < k; i++)
    ones[i] = 1.0;
  struct parzen pe;
  struct fox_err e = {0};
  if (parzen_build_weighted(&pe, &d, 1, obs, k, want == FOX_TPE_BELOW && mo ? ones : NULL, 1.0,
                            &e) != 0) {
    fprintf(stderr, "mo_tpe_cli: %s\n", e.msg);
    exit(1);
  }
  for (int i = 0; i < pe.n_kernels; i++)
    printf("%s%.17g", i ? " " : "", pe.cum_w[i] - (i ? pe.cum_w[i - 1] : 0.0));
  printf("\n");
  parzen_free(&pe);
  free(obs);
  free(ones);
}

int main(void) {
  char cmd[16];
  struct config base;
  config_defaults(&base);
  while (scanf("%15s", cmd) == 1) {
    int m, n, k = 0;
    if (scanf("%d %d", &m, &n) != 2 || m < 1 || m > FOX_OBJ_MAX || n < 0)
      return 1;
    double ref[FOX_OBJ_MAX], gamma = 0;
    if (cmd[0] == 'h' && cmd[1] == 's' && scanf("%d", &k) != 1)
      return 1;
    if (cmd[0] == 's' && scanf("%lf", &gamma) != 1)
      return 1;
    if (cmd[0] == 's') {
      struct seen_trial *h = calloc((size_t)n + 1, sizeof *h);
      double *x = malloc((size_t)(n + 1) * sizeof *x);
      signed char *side = malloc((size_t)n + 1);
      for (int i = 0; i < n; i++) {
        double st, row[FOX_OBJ_MAX + 2];
        if (read_n_(&st, 1) || read_n_(row, m + 2))
          return 1;
        h[i] = (struct seen_trial){&x[i], (int)st, row[2], 0, 0, m, {0}, row[0]};
        for (int j = 0; j < m; j++)
          h[i].values[j] = row[1 + j];
        x[i] = row[m + 1];
      }
      struct tpe_config tc = base.study.tpe;
      tc.gamma = gamma;
      tc.constant_liar = 1;
      int counted;
      struct fox_err e = {0};
      if (tpe_split(&tc, h, n, side, &counted, &e) != 0) {
        fprintf(stderr, "mo_tpe_cli: %s\n", e.msg);
        return 1;
      }
      for (int i = 0; i < n; i++)
        printf("%s%d", i ? " " : "", side[i]);
      printf("\n");
      weights_(h, n, side, FOX_TPE_BELOW, m > 1);
      weights_(h, n, side, FOX_TPE_ABOVE, m > 1);
      free(h), free(x), free(side);
      continue;
    }
    double *p = malloc((size_t)(n ? n : 1) * m * sizeof *p);
    int *chosen = malloc((size_t)(n ? n : 1) * sizeof *chosen);
    if (!p || !chosen || read_n_(ref, m) || read_n_(p, n * m))
      return 1;
    if (cmd[0] == 'h' && cmd[1] == 'v') {
      printf("%.17g\n", hv_compute(p, n, m, ref));
    } else {
      if (k < 1 || k > n || hv_hssp(p, n, m, k, ref, chosen) != 0)
        return 1;
      for (int i = 1; i < k; i++) /* ascending, for the comparison */
        for (int j = i; j > 0 && chosen[j - 1] > chosen[j]; j--) {
          int t = chosen[j];
          chosen[j] = chosen[j - 1];
          chosen[j - 1] = t;
        }
      for (int i = 0; i < k; i++)
        printf("%s%d", i ? " " : "", chosen[i]);
      printf("\n");
    }
    free(p);
    free(chosen);
  }
  return 0;
}
