/* Test driver for src/report/selection.c, read by tests/ref/selection_ref.py: a CSV matrix of
 * per-bar returns in (T rows, N columns, numbers only), every figure out as JSON. Non-finite
 * figures are written NaN / Infinity / -Infinity, which Python's json module reads.
 *   selection_cli MATRIX.csv [--blocks S] [--sr-star X] [--alpha A]
 *   selection_cli --ppf < NUMBERS    Phi^-1 and Phi of each number, one per line
 * Exit 0, or the library's exit code (2 usage, 3 bad data) with its message on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/selection.h"
#include "util/error.h"

static void num_(double x) {
  if (isnan(x))
    fputs("NaN", stdout);
  else if (isinf(x))
    fputs(x > 0 ? "Infinity" : "-Infinity", stdout);
  else
    printf("%.17g", x);
}

static void array_(const char *key, const double *x, long n) {
  printf("\"%s\": [", key);
  for (long i = 0; i < n; i++) {
    if (i)
      fputs(", ", stdout);
    num_(x[i]);
  }
  fputs("]", stdout);
}

/* The whole file as one row-major matrix; every row must have the first row's width. */
static int read_csv_(const char *path, double **out, long *rows, int *cols, struct fox_err *e) {
  FILE *f = fopen(path, "r");
  if (!f)
    return fox_errf(e, FOX_EDATA, "%s: cannot open", path);
  char *line = NULL;
  size_t cap = 0, len = 0, have = 0;
  double *x = NULL;
  long t = 0, lineno = 0;
  int n = -1, rc = 0;
  while (getline(&line, &cap, f) >= 0) {
    lineno++;
    if (strspn(line, " \t\r\n") == strlen(line))
      continue;
    int w = 0;
    char *p = line;
    for (;;) {
      char *end;
      double v = strtod(p, &end);
      if (end == p) {
        rc = fox_errf(e, FOX_EDATA, "%s:%ld: field %d is not a number", path, lineno, w + 1);
        goto done;
      }
      if (len == have) {
        have = have ? 2 * have : 1024;
        double *grown = realloc(x, sizeof *x * have);
        if (!grown) {
          rc = fox_errf(e, FOX_EFAIL, "%s:%d: out of memory", __FILE__, __LINE__);
          goto done;
        }
        x = grown;
      }
      x[len++] = v;
      w++;
      p = end + strspn(end, " \t\r\n");
      if (*p == ',')
        p++;
      else if (*p == '\0')
        break;
      else {
        rc = fox_errf(e, FOX_EDATA, "%s:%ld: unexpected '%c' after field %d", path, lineno, *p,
                      w);
        goto done;
      }
    }
    if (n < 0)
      n = w;
    if (w != n) {
      rc = fox_errf(e, FOX_EDATA, "%s:%ld: %d fields, the first row has %d", path, lineno, w, n);
      goto done;
    }
    t++;
  }
  if (t == 0)
    rc = fox_errf(e, FOX_EDATA, "%s: no rows", path);
done:
  free(line);
  fclose(f);
  if (rc) {
    free(x);
    return rc;
  }
  *out = x;
  *rows = t;
  *cols = n;
  return 0;
}

static int ppf_mode_(void) {
  double *x = NULL;
  long n = 0, cap = 0;
  double v;
  while (scanf("%lf", &v) == 1) {
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      double *grown = realloc(x, sizeof *x * (size_t)cap);
      if (!grown) {
        free(x);
        fputs("selection_cli: out of memory\n", stderr);
        return 1;
      }
      x = grown;
    }
    x[n++] = v;
  }
  size_t bytes = sizeof(double) * (size_t)(n ? n : 1);
  double *p = malloc(bytes), *c = malloc(bytes);
  if (!p || !c) {
    free(x);
    free(p);
    free(c);
    fputs("selection_cli: out of memory\n", stderr);
    return 1;
  }
  for (long i = 0; i < n; i++) {
    p[i] = selection_norm_ppf(x[i]);
    c[i] = selection_norm_cdf(x[i]);
  }
  fputs("{", stdout);
  array_("ppf", p, n);
  fputs(", ", stdout);
  array_("cdf", c, n);
  fputs("}\n", stdout);
  free(x);
  free(p);
  free(c);
  return 0;
}

static int usage_(void) {
  fputs("usage: selection_cli MATRIX.csv [--blocks S] [--sr-star X] [--alpha A]\n"
        "       selection_cli --ppf < NUMBERS\n", stderr);
  return 2;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--ppf"))
    return ppf_mode_();
  if (argc < 2 || argv[1][0] == '-')
    return usage_();
  int s = 16;
  double sr_star = 0.0, alpha = 0.05;
  for (int i = 2; i < argc; i++) {
    if (i + 1 >= argc)
      return usage_();
    if (!strcmp(argv[i], "--blocks"))
      s = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sr-star"))
      sr_star = strtod(argv[++i], NULL);
    else if (!strcmp(argv[i], "--alpha"))
      alpha = strtod(argv[++i], NULL);
    else
      return usage_();
  }
  struct fox_err e = {0};
  double *m = NULL;
  long t = 0;
  int n = 0;
  if (read_csv_(argv[1], &m, &t, &n, &e)) {
    fprintf(stderr, "selection_cli: %s\n", e.msg);
    return fox_exit_code(e.code);
  }
  /* CSCV first: it checks the whole matrix and names a bad entry's row and column. */
  struct pbo_result r;
  if (selection_pbo(m, t, n, s, &r, &e)) {
    fprintf(stderr, "selection_cli: %s\n", e.msg);
    free(m);
    return fox_exit_code(e.code);
  }
  struct sr_moments *mo = calloc((size_t)n, sizeof *mo);
  double *col = malloc(sizeof *col * (size_t)t);
  if (!mo || !col) {
    fputs("selection_cli: out of memory\n", stderr);
    return 1;
  }
  /* The moments of every column, and the variance of their Sharpes across the N columns
   * (ddof = 1, Welford): the trials' dispersion that DSR deflates the best one by. */
  double vmean = 0.0, vm2 = 0.0;
  int best = 0;
  for (int j = 0; j < n; j++) {
    for (long i = 0; i < t; i++)
      col[i] = m[(size_t)i * n + j];
    if (selection_moments(col, t, &mo[j], &e)) {
      fprintf(stderr, "selection_cli: column %d: %s\n", j, e.msg);
      return fox_exit_code(e.code);
    }
    double d = mo[j].sr - vmean;
    vmean += d / (j + 1);
    vm2 += d * (mo[j].sr - vmean);
    if (mo[j].sr > mo[best].sr)
      best = j;
  }
  double var_sr = n > 1 ? vm2 / (n - 1) : NAN;
  printf("{\"t\": %ld, \"n\": %d, \"sr_star\": ", t, n);
  num_(sr_star);
  fputs(", \"alpha\": ", stdout);
  num_(alpha);
  fputs(",\n \"columns\": [", stdout);
  for (int j = 0; j < n; j++) {
    printf("%s\n  {\"sr\": ", j ? "," : "");
    num_(mo[j].sr);
    fputs(", \"skew\": ", stdout);
    num_(mo[j].skew);
    fputs(", \"kurt\": ", stdout);
    num_(mo[j].kurt);
    fputs(", \"psr\": ", stdout);
    num_(selection_psr(&mo[j], sr_star));
    fputs(", \"min_trl\": ", stdout);
    num_(selection_min_trl(&mo[j], sr_star, alpha));
    fputs("}", stdout);
  }
  printf("],\n \"best\": %d, \"var_sr\": ", best);
  num_(var_sr);
  fputs(", \"expected_max_sr\": ", stdout);
  num_(selection_expected_max_sr(var_sr, n));
  fputs(", \"dsr\": ", stdout);
  num_(selection_dsr(&mo[best], var_sr, n));
  printf(",\n \"pbo\": {\"blocks\": %d, \"block_rows\": %ld, \"dropped_rows\": %ld, "
         "\"combos\": %ld, \"pbo\": ", r.blocks, r.block_rows, r.dropped_rows, r.combos);
  num_(r.pbo);
  fputs(", \"slope\": ", stdout);
  num_(r.slope);
  fputs(", \"intercept\": ", stdout);
  num_(r.intercept);
  fputs(", \"r2\": ", stdout);
  num_(r.r2);
  fputs(", \"prob_oos_loss\": ", stdout);
  num_(r.prob_oos_loss);
  fputs(",\n  \"best\": [", stdout);
  for (long c = 0; c < r.combos; c++)
    printf("%s%d", c ? ", " : "", r.best[c]);
  fputs("],\n  ", stdout);
  array_("logits", r.logits, r.combos);
  fputs(",\n  ", stdout);
  array_("is_sr", r.is_sr, r.combos);
  fputs(",\n  ", stdout);
  array_("oos_sr", r.oos_sr, r.combos);
  fputs("}}\n", stdout);
  selection_pbo_free(&r);
  free(mo);
  free(col);
  free(m);
  return 0;
}
