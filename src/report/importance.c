/* PED-ANOVA parameter importance (Watanabe, Bansal & Hutter 2023, "PED-ANOVA: Efficiently
 * Quantifying Hyperparameter Importance in Arbitrary Subspaces"), with the conditional
 * regimes and the defaults of Optuna 5.1's PedAnovaImportanceEvaluator, and its report. */
#include "report/importance.h"
#include "util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/truncnorm.h"
#include "study/study.h"

/* Numeric domains are cut into at most this many grid points (Optuna's n_steps). */
#define GRID_MAX_ 50
/* The weight of the uniform prior kernel in each estimator. */
#define PRIOR_WEIGHT_ 1.0
/* Added to both densities so that the ratio is finite where a density vanishes. */
#define PDF_EPS_ 1e-12

struct grid_ {
  int n;     /* grid points (choices for a categorical parameter) */
  int cat;   /* categorical: the points are the choices */
  int lg;    /* numeric, searched in log space */
  double lo, hi;
};

/* The grid a parameter's values are counted on: every choice of a categorical one; for a
 * numeric one the grid points up to GRID_MAX_ (integers on a log scale: one per doubling),
 * evenly spaced in the searched (log or natural) units. */
static void grid_of_(const struct space_param *p, struct grid_ *g) {
  memset(g, 0, sizeof *g);
  if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
    g->cat = 1;
    g->n = p->n_choices;
    return;
  }
  double low, high, step;
  space_numeric(p, &low, &high, &step, &g->lg);
  double n = GRID_MAX_;
  if (p->integer && g->lg)
    n = fmin(ceil(log(high - low + 1) / log(2)) + 1, GRID_MAX_);
  else if (step > 0)
    n = fmin(round((high - low) / step) + 1, GRID_MAX_);
  g->n = (int)n;
  g->lo = g->lg ? log(low) : low;
  g->hi = g->lg ? log(high) : high;
}

/* The grid point of a value: the nearest, a midpoint going to the lower one. */
static int grid_index_(const struct grid_ *g, double v) {
  if (g->cat)
    return (int)v;
  double step = (g->hi - g->lo) / (g->n - 1);
  double k = ceil(((g->lg ? log(v) : v) - g->lo) / step - 0.5);
  return k < 0 ? 0 : k > g->n - 1 ? g->n - 1 : (int)k;
}

/* The Parzen estimator of grid counts c[n] evaluated at every grid point into pdf[n]: a kernel
 * per occupied point weighted by its count plus a prior kernel of weight PRIOR_WEIGHT_. On a
 * numeric grid the kernels are normals truncated to the grid and discretised to its points,
 * with one bandwidth by Scott's rule (min of the weighted std and IQR / 1.34, times
 * 1.059 W^-1/5, at least 0.5 / 1.64 of a grid step); the prior is centred with a std of the
 * grid's width. On a categorical one each kernel is its choice plus the prior weight smoothed
 * over the choices, and the prior is uniform. */
static void grid_pdf_(const struct grid_ *g, const int *c, double *pdf) {
  int n = g->n, m = 0;
  double w_sum = 0;
  for (int i = 0; i < n; i++) {
    m += c[i] > 0;
    w_sum += c[i];
  }
  double norm = w_sum + PRIOR_WEIGHT_;
  if (g->cat) {
    double nk = m + 1, smooth = PRIOR_WEIGHT_ / nk, row = 1 + n * smooth;
    for (int j = 0; j < n; j++) { /* the prior's row, PRIOR_WEIGHT_/nk everywhere, is uniform */
      pdf[j] = PRIOR_WEIGHT_ / norm / n;
      for (int i = 0; i < n; i++)
        if (c[i] > 0)
          pdf[j] += c[i] / norm * ((i == j) + smooth) / row;
    }
    return;
  }
  double mean = 0, var = 0;
  for (int i = 0; i < n; i++)
    mean += (double)i * c[i];
  mean /= w_sum;
  for (int i = 0; i < n; i++)
    var += (i - mean) * (i - mean) * c[i];
  double sd = sqrt(var / fmax(1, w_sum - 1));
  /* the quartiles' grid points: the first whose cumulative count reaches floor(W/4), and the
   * first whose cumulative count passes floor(3W/4) */
  double q1c = floor(w_sum / 4), q3c = floor(w_sum * 3 / 4), cum = 0;
  int q1 = -1, q3 = -1, last = 0;
  for (int i = 0; i < n; i++) {
    if (c[i] == 0)
      continue;
    cum += c[i];
    last = i;
    if (q1 < 0 && cum >= q1c)
      q1 = i;
    if (q3 < 0 && cum > q3c)
      q3 = i;
  }
  if (q3 < 0)
    q3 = last;
  double sigma = 1.059 * fmin((q3 - q1) / 1.34, sd) * pow(w_sum, -0.2);
  sigma = fmax(sigma, 0.5 / 1.64);
  for (int j = 0; j < n; j++) {
    /* log-sum-exp over the kernels, the prior last */
    double lp[GRID_MAX_ + 1], top = -INFINITY;
    int k = 0;
    for (int i = 0; i <= n; i++) {
      double mu, s, w;
      if (i < n) {
        if (c[i] == 0)
          continue;
        mu = i, s = sigma, w = c[i] / norm;
      } else {
        mu = (n - 1) / 2.0, s = n, w = PRIOR_WEIGHT_ / norm;
      }
      lp[k] = log(w) + truncnorm_log_mass((j - 0.5 - mu) / s, (j + 0.5 - mu) / s) -
              truncnorm_log_mass((-0.5 - mu) / s, (n - 0.5 - mu) / s);
      top = fmax(top, lp[k]);
      k++;
    }
    double sum = 0;
    for (int i = 0; i < k; i++)
      sum += exp(lp[i] - top);
    pdf[j] = isinf(top) ? 0 : exp(log(sum) + top);
  }
}

/* The Pearson divergence of the top set's density from the region's over the grid:
 * sum_g p_region (p_top / p_region - 1)^2. */
static double divergence_(const struct grid_ *g, const int *c_top, const int *c_all) {
  double p_top[GRID_MAX_ > FOX_CHOICES_MAX ? GRID_MAX_ : FOX_CHOICES_MAX];
  double p_all[GRID_MAX_ > FOX_CHOICES_MAX ? GRID_MAX_ : FOX_CHOICES_MAX];
  grid_pdf_(g, c_top, p_top);
  grid_pdf_(g, c_all, p_all);
  double d = 0;
  for (int i = 0; i < g->n; i++) {
    double t = p_top[i] + PDF_EPS_, a = p_all[i] + PDF_EPS_;
    d += a * (t / a - 1) * (t / a - 1);
  }
  return d;
}

static int cmp_double_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int importance_ped_anova(const struct space *sp, const double *x, int n, const double *value,
                         int direction, struct importance *out, struct fox_err *e) {
  memset(out, 0, sizeof *out);
  int np = sp->n;
  for (int i = 0; i < FOX_SPACE_MAX; i++)
    out->imp[i] = NAN;
  double *loss = malloc((size_t)(n ? n : 1) * sizeof *loss);
  double *sorted = malloc((size_t)(n ? n : 1) * sizeof *sorted);
  int *use = malloc((size_t)(n ? n : 1) * sizeof *use);
  if (!loss || !sorted || !use) {
    free(loss);
    free(sorted);
    free(use);
    return fox_errf(e, FOX_EFAIL, "out of memory (parameter importance)");
  }
  int m = 0;
  for (int t = 0; t < n; t++)
    if (isfinite(value[t])) {
      use[m] = t;
      loss[m] = direction == FOX_MAXIMIZE ? -value[t] : value[t];
      sorted[m] = loss[m];
      m++;
    }
  out->n = m;
  for (int i = 0; i < np; i++)
    for (int r = 0; r < m; r++)
      out->n_active[i] += !isnan(x[(size_t)use[r] * np + i]);
  if (m < FOX_IMP_MIN_TRIALS) {
    out->status = FOX_IMP_FEW;
    goto done;
  }
  /* The top set: every trial at least as good as the ceil(gamma' m)-th best (Optuna's
   * inverted-CDF quantile, ties kept). */
  qsort(sorted, (size_t)m, sizeof *sorted, cmp_double_);
  double cut = sorted[(int)ceil(FOX_IMP_QUANTILE * m) - 1];
  for (int r = 0; r < m; r++)
    out->n_top += loss[r] <= cut;
  double q = (double)out->n_top / m, sum = 0;
  for (int i = 0; i < np; i++) {
    struct grid_ g;
    grid_of_(&sp->p[i], &g);
    int c_top[GRID_MAX_ > FOX_CHOICES_MAX ? GRID_MAX_ : FOX_CHOICES_MAX] = {0};
    int c_all[GRID_MAX_ > FOX_CHOICES_MAX ? GRID_MAX_ : FOX_CHOICES_MAX] = {0};
    int n_top_active = 0;
    for (int r = 0; r < m; r++) {
      double v = x[(size_t)use[r] * np + i];
      if (isnan(v))
        continue;
      int k = grid_index_(&g, v);
      c_all[k]++;
      if (loss[r] <= cut) {
        c_top[k]++;
        n_top_active++;
      }
    }
    /* Conditional PED-ANOVA: the trials where the parameter is active are a regime of their
     * own, weighted by alpha^2 / beta (alpha, beta: the regime's share of the top set and of
     * all trials); the inactive regime has no distribution and adds nothing; a regime of
     * fewer than 2 trials is dropped. */
    if (g.n <= 1)
      out->why[i] = FOX_IMP_WHY_SINGLE;
    else if (out->n_active[i] < 2)
      out->why[i] = FOX_IMP_WHY_RARE;
    else if (n_top_active == 0)
      out->why[i] = FOX_IMP_WHY_NOT_TOP;
    if (out->why[i] != FOX_IMP_WHY_NONE)
      continue;
    double alpha = (double)n_top_active / out->n_top, beta = (double)out->n_active[i] / m;
    out->raw[i] = q * q * alpha * alpha / beta * divergence_(&g, c_top, c_all);
    sum += out->raw[i];
  }
  if (sum > 0) {
    for (int i = 0; i < np; i++)
      out->imp[i] = out->raw[i] / sum;
  } else if (out->n_top == m) { /* every trial tied: nothing to separate */
    out->status = FOX_IMP_FLAT;
  } else { /* the best differ from the rest, yet no parameter can say how: each notes why */
    out->status = FOX_IMP_ZERO;
    for (int i = 0; i < np; i++)
      out->imp[i] = 0;
  }
done:
  for (int i = 0; i < np; i++) {
    out->rank[i] = 1;
    for (int j = 0; j < np; j++)
      out->rank[i] += out->raw[j] > out->raw[i];
  }
  free(loss);
  free(sorted);
  free(use);
  return 0;
}

int report_importance(const struct study *s, int j, struct importance *out, struct fox_err *e) {
  if (s->cfg.study.scheduler == FOX_SCHED_PBT) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < FOX_SPACE_MAX; i++)
      out->imp[i] = NAN;
    out->status = FOX_IMP_PBT;
    return 0;
  }
  int np = s->space.n, n = 0;
  double *x = malloc((size_t)(s->n ? s->n : 1) * (size_t)(np ? np : 1) * sizeof *x);
  double *v = malloc((size_t)(s->n ? s->n : 1) * sizeof *v);
  if (!x || !v) {
    free(x);
    free(v);
    return fox_errf(e, FOX_EFAIL, "out of memory (parameter importance)");
  }
  for (int t = 0; t < s->n; t++) {
    const struct study_trial *tr = &s->trials[t];
    if (tr->status != FOX_ST_COMPLETE)
      continue;
    memcpy(x + (size_t)n * np, tr->x, (size_t)np * sizeof *x);
    v[n++] = tr->metrics[s->obj_metric[j]];
  }
  int rc = importance_ped_anova(&s->space, x, n, v, s->obj_dir[j], out, e);
  free(x);
  free(v);
  return rc;
}

static const char *why_text_(int why) {
  switch (why) {
  case FOX_IMP_WHY_SINGLE: return "one value in its domain";
  case FOX_IMP_WHY_RARE: return "active in fewer than 2 trials";
  case FOX_IMP_WHY_NOT_TOP: return "never active in the top set";
  default: return "";
  }
}

int report_importance_table(const struct importance *im) {
  return im->status == FOX_IMP_DONE || im->status == FOX_IMP_ZERO;
}

int report_importance_status(const struct importance *im, char *buf, size_t n) {
  switch (im->status) {
  case FOX_IMP_PBT:
    return snprintf(buf, n, "not computed: a pbt row's result comes from its member's whole "
                            "schedule, not from the row's parameters alone");
  case FOX_IMP_FEW:
    return snprintf(buf, n, "not computed: %d complete trial%s with a value, fewer than %d (a "
                            "best tenth of one or two trials decides nothing)",
                    im->n, im->n == 1 ? "" : "s", FOX_IMP_MIN_TRIALS);
  case FOX_IMP_FLAT:
    return snprintf(buf, n, "not computed: the best %d of %d complete trials are all of them "
                            "(tied values), so nothing separates them", im->n_top, im->n);
  case FOX_IMP_ZERO:
    return snprintf(buf, n, "the best %d of %d complete trials, but no parameter sets them apart: "
                            "every importance is 0 (where Optuna would give equal shares)",
                    im->n_top, im->n);
  default:
    return snprintf(buf, n, "the best %d of %d complete trials%s", im->n_top, im->n,
                    im->n_top < FOX_IMP_MIN_TOP ? "; fewer than 5 in the top set, so the "
                                                  "figures are coarse" : "");
  }
}

int report_importance_note(const struct importance *im, int i, char *buf, size_t n) {
  if (im->why[i] != FOX_IMP_WHY_NONE)
    return snprintf(buf, n, "%s", why_text_(im->why[i]));
  if (im->status == FOX_IMP_ZERO || (im->status == FOX_IMP_DONE && im->raw[i] == 0))
    return snprintf(buf, n, "spread among the best as among all");
  if (im->n_active[i] < im->n)
    return snprintf(buf, n, "active in %d trials", im->n_active[i]);
  return snprintf(buf, n, "%s", "");
}

int report_print_importance(FILE *f, const struct study *s, struct fox_err *e) {
  struct importance im;
  int np = s->space.n;
  char line[256];
  fprintf(f, "# parameter importance (PED-ANOVA, Watanabe et al. 2023, as Optuna's default "
             "evaluator): how much each parameter's values among the best %.0f %% of the "
             "complete trials differ from its values among all of them\n",
          100 * FOX_IMP_QUANTILE);
  for (int j = 0; j < s->n_obj; j++) {
    FOX_TRY(report_importance(s, j, &im, e));
    const char *obj = s->metric_names[s->obj_metric[j]];
    report_importance_status(&im, line, sizeof line);
    if (im.status == FOX_IMP_PBT) {
      fprintf(f, "#   %s\n", line);
      return 0;
    }
    if (!report_importance_table(&im)) {
      fprintf(f, "#   %s: %s\n", obj, line);
      continue;
    }
    fprintf(f, "#   %s (%s): %s\n", obj, s->obj_dir[j] == FOX_MAXIMIZE ? "maximize" : "minimize",
            line);
    int width = (int)strlen("parameter");
    for (int i = 0; i < np; i++)
      if ((int)strlen(s->space.p[i].key) > width)
        width = (int)strlen(s->space.p[i].key);
    fprintf(f, "#   %-*s  %10s  %4s  %s\n", width, "parameter", "importance", "rank", "note");
    for (int r = 1; r <= np; r++) /* by rank, ties in the space's order */
      for (int i = 0; i < np; i++) {
        if (im.rank[i] != r)
          continue;
        char note[96];
        report_importance_note(&im, i, note, sizeof note);
        fprintf(f, "#   %-*s  %10.4f  %4d%s%s\n", width, s->space.p[i].key, im.imp[i],
                im.rank[i], note[0] ? "  " : "", note);
      }
  }
  return 0;
}

int report_importance_json(json_t *j, const struct study *s, struct fox_err *e) {
  static const char *const st[] = {[FOX_IMP_DONE] = "done", [FOX_IMP_FEW] = "few",
                                   [FOX_IMP_FLAT] = "flat", [FOX_IMP_PBT] = "pbt",
                                   [FOX_IMP_ZERO] = "zero"};
  json_t *list = json_array();
  char line[256], note[96];
  for (int k = 0; k < s->n_obj && e->code == 0; k++) {
    struct importance im;
    FOX_TRY(report_importance(s, k, &im, e));
    json_t *o = json_object();
    fox_json_set(o, "metric", fox_json_str(s->metric_names[s->obj_metric[k]]), e);
    fox_json_set(o, "status", json_string(st[im.status]), e);
    report_importance_status(&im, line, sizeof line);
    fox_json_set(o, "says", fox_json_str(line), e);
    fox_json_set(o, "n", json_integer(im.n), e);
    fox_json_set(o, "n_top", json_integer(im.n_top), e);
    json_t *params = json_array();
    for (int i = 0; report_importance_table(&im) && i < s->space.n; i++) {
      json_t *p = json_object();
      fox_json_set(p, "name", fox_json_str(s->space.p[i].key), e);
      fox_json_set(p, "importance", fox_json_num(im.imp[i]), e);
      fox_json_set(p, "rank", json_integer(im.rank[i]), e);
      report_importance_note(&im, i, note, sizeof note);
      fox_json_set(p, "note", fox_json_str(note), e);
      fox_json_push(params, p, e);
    }
    fox_json_set(o, "params", params, e);
    fox_json_push(list, o, e);
    if (im.status == FOX_IMP_PBT)
      break;
  }
  return fox_json_set(j, "importance", list, e);
}
