/* The study as foxopt report shows it: ranked best first, metrics in the units people read
 * them in, and the fixed-width table with its header lines. */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "study/objective.h"

struct rank_key_ {
  int group;   /* complete, pruned, running, failed */
  int epochs;  /* negated: more epochs first */
  double loss; /* NaN last */
  int index;
};

static int cmp_key_(const void *a, const void *b) {
  const struct rank_key_ *x = a, *y = b;
  if (x->group != y->group)
    return x->group < y->group ? -1 : 1;
  if (x->epochs != y->epochs)
    return x->epochs < y->epochs ? -1 : 1;
  int xn = isnan(x->loss), yn = isnan(y->loss);
  if (xn != yn)
    return xn ? 1 : -1;
  if (!xn && x->loss != y->loss)
    return x->loss < y->loss ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

void report_rank(const struct study *s, int *order) {
  static const int group[4] = {[FOX_ST_COMPLETE] = 0, [FOX_ST_PRUNED] = 1,
                               [FOX_ST_RUNNING] = 2, [FOX_ST_FAILED] = 3};
  struct rank_key_ *k = malloc((size_t)(s->n ? s->n : 1) * sizeof *k);
  if (!k) {
    for (int i = 0; i < s->n; i++) /* still an order, if not the ranked one */
      order[i] = i;
    return;
  }
  /* Several objectives or constraints: complete trials by constrained non-domination rank
   * (the feasible Pareto front first, infeasible ones by violation last), then by the first
   * objective. */
  int *prank = NULL;
  if (s->n_obj > 1 || s->n_con > 0) {
    struct fox_err e = {0};
    prank = malloc((size_t)(s->n ? s->n : 1) * sizeof *prank);
    if (prank && study_pareto_ranks(s, prank, &e) != 0) {
      free(prank);
      prank = NULL;
    }
  }
  for (int i = 0; i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    /* complete trials are compared on the objective alone, as study_best does; pbt's
     * segments latest generation first (the population's result, what study_best picks
     * from), then the earlier ones they came from */
    int by_epochs = t->status == FOX_ST_PRUNED || t->status == FOX_ST_RUNNING ||
                    (t->status == FOX_ST_COMPLETE && s->cfg.study.scheduler == FOX_SCHED_PBT);
    int key = by_epochs ? -t->epochs : 0;
    if (prank && t->status == FOX_ST_COMPLETE)
      key = prank[i] >= 0 ? prank[i] : 1 << 30;
    k[i] = (struct rank_key_){group[t->status], key,
                              t->status == FOX_ST_FAILED ? NAN : study_loss(s, t), i};
  }
  free(prank);
  qsort(k, (size_t)s->n, sizeof *k, cmp_key_);
  for (int i = 0; i < s->n; i++)
    order[i] = k[i].index;
  free(k);
}

void report_count(const struct study *s, int counts[4]) {
  memset(counts, 0, 4 * sizeof *counts);
  for (int i = 0; i < s->n; i++)
    counts[s->trials[i].status]++;
}

static int agent_study_(const struct study *s) { return s->cfg.study.function == 0; }

const char *report_num(double v, const char *fmt, char *buf, size_t n) {
  if (isnan(v))
    snprintf(buf, n, "-");
  else if (isinf(v))
    snprintf(buf, n, v > 0 ? "inf" : "-inf");
  else
    snprintf(buf, n, fmt, v);
  return buf;
}

double report_metric_scale(const struct study *s, int j, const char **unit) {
  static const char *const percent[] = {"total_return", "max_drawdown", "annual_return",
                                        "win_rate", "exposure", NULL};
  *unit = "";
  if (!agent_study_(s) || j < 0 || j >= FOX_NMETRICS)
    return 1.0;
  for (const char *const *p = percent; *p; p++)
    if (strcmp(metrics_names[j], *p) == 0) {
      *unit = "%";
      return 100.0;
    }
  return 1.0;
}

void report_metric_label(const struct study *s, int j, char *buf, size_t n) {
  const char *unit;
  report_metric_scale(s, j, &unit);
  snprintf(buf, n, unit[0] ? "%s[%s]" : "%s", s->metric_names[j], unit);
}

/* The text of one cell: "-" for a missing metric, "" for an inactive parameter. */
void report_cell(const struct study *s, const struct study_trial *t, const struct report_col *c,
                 char *buf, size_t n) {
  switch (c->kind) {
  case FOX_COL_ID:
    snprintf(buf, n, "%d", t->id);
    break;
  case FOX_COL_STATUS:
    snprintf(buf, n, "%s", study_status_names[t->status]);
    break;
  case FOX_COL_EPOCHS:
    snprintf(buf, n, "%d", t->epochs);
    break;
  case FOX_COL_FEASIBLE: {
    int f = study_feasible(s, t);
    snprintf(buf, n, "%s", f < 0 ? "" : f ? "yes" : "no");
    break;
  }
  case FOX_COL_METRIC:
  case FOX_COL_SPREAD: {
    const char *unit;
    double v = (c->kind == FOX_COL_METRIC ? t->metrics : t->spread)[c->idx] *
               report_metric_scale(s, c->idx, &unit);
    if (isnan(v))
      snprintf(buf, n, "-");
    else
      snprintf(buf, n, "%.6g", v);
    break;
  }
  default: {
    const struct space_param *p = &s->space.p[c->idx];
    double x = t->x[c->idx];
    if (isnan(x) || p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED || p->integer)
      space_format(p, x, buf, n);
    else
      snprintf(buf, n, "%.5g", x); /* trials.csv and --csv keep every digit */
  }
  }
}

/* id, status, epochs, the objective, the key metrics of an agent study, every parameter. */
int report_columns(const struct study *s, struct report_col *cols) {
  int n = 0;
  cols[n++] = (struct report_col){FOX_COL_ID, 0, 0, "id"};
  cols[n++] = (struct report_col){FOX_COL_STATUS, 0, 1, "status"};
  cols[n++] = (struct report_col){FOX_COL_EPOCHS, 0, 0, "epochs"};
  cols[n++] = (struct report_col){FOX_COL_METRIC, s->objective, 0, ""};
  if (s->repeats * s->folds > 1)
    cols[n++] = (struct report_col){FOX_COL_SPREAD, s->objective, 0, "std"};
  for (int k = 1; k < s->n_obj; k++)
    cols[n++] = (struct report_col){FOX_COL_METRIC, s->obj_metric[k], 0, ""};
  if (s->n_obj > 1 || s->n_con > 0)
    cols[n++] = (struct report_col){FOX_COL_FEASIBLE, 0, 0, "feasible"};
  for (int c = 0; c < s->n_con; c++) {
    int dup = 0;
    for (int k = 0; k < s->n_obj; k++)
      dup |= s->obj_metric[k] == s->con_metric[c];
    for (int d = 0; d < c; d++)
      dup |= s->con_metric[d] == s->con_metric[c];
    if (!dup)
      cols[n++] = (struct report_col){FOX_COL_METRIC, s->con_metric[c], 0, ""};
  }
  if (agent_study_(s)) {
    static const char *const key[] = {"total_return", "sharpe", "max_drawdown", "trades"};
    for (int i = 0; i < 4; i++) {
      int j = metrics_find(key[i]), shown = 0;
      for (int c = 0; c < n; c++)
        shown |= cols[c].kind == FOX_COL_METRIC && cols[c].idx == j;
      if (!shown)
        cols[n++] = (struct report_col){FOX_COL_METRIC, j, 0, ""};
    }
  }
  for (int i = 0; i < s->space.n; i++) {
    const struct space_param *p = &s->space.p[i];
    /* choices line up to the left unless they are all numbers */
    int text = 0;
    if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED)
      for (int c = 0; c < p->n_choices; c++)
        text |= isnan(p->choice_num[c]);
    cols[n] = (struct report_col){FOX_COL_PARAM, i, text, ""};
    snprintf(cols[n++].head, sizeof cols->head, "%s", p->key);
  }
  for (int c = 0; c < n; c++)
    if (cols[c].kind == FOX_COL_METRIC)
      report_metric_label(s, cols[c].idx, cols[c].head, sizeof cols[c].head);
  return n;
}

void report_print_header(FILE *f, const struct study *s, int shown, const char *lead) {
  const struct study_config *sc = &s->cfg.study;
  const char *obj = s->metric_names[s->objective];
  int max = sc->direction == FOX_MAXIMIZE;
  int c[4];
  report_count(s, c);
  char objs[FOX_OBJ_MAX * (FOX_NAME_LEN + 16)] = "";
  for (int k = 0; k < s->n_obj; k++)
    snprintf(objs + strlen(objs), sizeof objs - strlen(objs), "%s%s (%s)", k ? ", " : "",
             s->metric_names[s->obj_metric[k]],
             s->obj_dir[k] == FOX_MAXIMIZE ? "maximize" : "minimize");
  fprintf(f, "%sstudy %s: objective%s %s; %d/%d trials done: %d complete, %d pruned, "
             "%d failed, %d running\n",
          lead, sc->name, s->n_obj > 1 ? "s" : "", objs, s->n - c[FOX_ST_RUNNING], s->total,
          c[FOX_ST_COMPLETE], c[FOX_ST_PRUNED], c[FOX_ST_FAILED], c[FOX_ST_RUNNING]);
  for (int k = 0; k < s->n_con; k++) {
    char text[FOX_NAME_LEN + 40];
    config_format_constraint(&sc->constraints[k], text, sizeof text);
    fprintf(f, "%s%s%s%s", k ? "" : lead, k ? ", " : "constraints: ", text,
            k + 1 == s->n_con ? " (a complete trial that breaks one is infeasible: never on "
                                "the front, ranked after the feasible ones by its total "
                                "violation)\n" : "");
  }
  if (sc->scheduler == FOX_SCHED_PBT)
    fprintf(f, "%sranked best first: pbt segments by generation, the latest complete one first "
               "(the population's result), by %s (%s first) within a generation, then running "
               "ones, then failed ones\n", lead, obj, max ? "highest" : "lowest");
  else if (s->n_obj > 1 || s->n_con > 0)
    fprintf(f, "%sranked best first: complete trials by constrained non-domination rank (the "
               "feasible Pareto front first), then by %s (%s first), then pruned ones, then "
               "running ones, then failed ones\n", lead, obj, max ? "highest" : "lowest");
  else
    fprintf(f, "%sranked best first: complete trials by %s (%s first), then pruned ones (most "
               "epochs first, then by %s), then running ones, then failed ones\n",
            lead, obj, max ? "highest" : "lowest", obj);
  int scale_searched = 0;
  for (int i = 0; i < s->space.n; i++)
    scale_searched |= strcmp(s->space.p[i].key, "reward.scale") == 0;
  if (agent_study_(s) && s->reward_scale > 0)
    fprintf(f, "%sreward.scale %.6g%s\n", lead, s->reward_scale,
            scale_searched                  ? " where a trial takes auto (it is searched: see "
                                              "the column)"
            : s->cfg.market.reward_scale > 0 ? ""
                                             : " (auto: 1 / std of the train split's one-bar log "
                                               "returns)");
  if (s->repeats * s->folds > 1) {
    static const char *const agg[] = {"mean", "median", "interquartile mean", "mean"};
    fprintf(f, "%seach metric is the %s over %d repeat%s x %d fold%s (the same %d seeds for "
               "every trial)%s; std: the objective's standard deviation over them\n",
            lead, agg[sc->aggregate], s->repeats, s->repeats > 1 ? "s" : "", s->folds,
            s->folds > 1 ? "s" : "", s->repeats,
            sc->aggregate != FOX_AGG_LCB  ? ""
            : sc->direction == FOX_MAXIMIZE ? ", the objective its mean - std / sqrt(n) (lcb)"
                                            : ", the objective its mean + std / sqrt(n) (lcb)");
  }
  if (agent_study_(s))
    fprintf(f, "%sthe best %d of %d trials; metrics of the %s split after the trial's last "
               "epoch: returns and drawdowns in %%, sharpe annualised, trades = closed round "
               "trips\n", lead, shown, s->n, dataset_split_name(s->cfg.eval_split));
  else {
    const struct test_function *tf = objective_function(sc->function);
    fprintf(f, "%sthe best %d of %d trials; %s = %s(", lead, shown, s->n,
            s->n_metrics > 1 ? "the outputs" : "value", tf->name);
    for (int i = 0; i < tf->dims; i++)
      fprintf(f, "%s%s", i ? ", " : "", tf->vars[i]);
    fprintf(f, ")\n");
  }
}

/* One line: `lead` ("# " or "  "), the cells two spaces apart, no trailing blanks. */
static void row_(FILE *f, const char *lead, const struct report_col *cols, const int *width,
                 int nc, char (*cells)[FOX_CHOICE_LEN]) {
  fputs(lead, f);
  for (int c = 0; c < nc; c++) {
    const char *sep = c ? "  " : "";
    if (!cols[c].left)
      fprintf(f, "%s%*s", sep, width[c], cells[c]);
    else if (c + 1 < nc)
      fprintf(f, "%s%-*s", sep, width[c], cells[c]);
    else
      fprintf(f, "%s%s", sep, cells[c]);
  }
  fputc('\n', f);
}

void report_print_table(FILE *f, const struct study *s, const int *order, int k) {
  struct report_col cols[FOX_REPORT_COLS];
  char cells[FOX_REPORT_COLS][FOX_CHOICE_LEN];
  int width[FOX_REPORT_COLS];
  int nc = report_columns(s, cols);
  if (k > s->n)
    k = s->n;
  for (int c = 0; c < nc; c++) {
    width[c] = (int)strlen(cols[c].head);
    for (int r = 0; r < k; r++) {
      report_cell(s, &s->trials[order[r]], &cols[c], cells[c], sizeof cells[c]);
      if ((int)strlen(cells[c]) > width[c])
        width[c] = (int)strlen(cells[c]);
    }
  }
  report_print_header(f, s, k, "# ");
  /* The column names behind "# " and the rows behind two spaces: the columns line up and
   * `grep -v '^#'` leaves the rows alone. */
  for (int c = 0; c < nc; c++)
    snprintf(cells[c], sizeof cells[c], "%s", cols[c].head);
  row_(f, "# ", cols, width, nc, cells);
  for (int r = 0; r < k; r++) {
    for (int c = 0; c < nc; c++)
      report_cell(s, &s->trials[order[r]], &cols[c], cells[c], sizeof cells[c]);
    row_(f, "  ", cols, width, nc, cells);
  }
  if (s->n_obj > 1)
    report_print_front(f, s);
}

int report_front(const struct study *s, int *ids) {
  struct fox_err e = {0};
  int *rank = malloc((size_t)(s->n ? s->n : 1) * sizeof *rank), k = 0;
  if (!rank || study_pareto_ranks(s, rank, &e) != 0) {
    free(rank);
    return -1;
  }
  for (int i = 0; i < s->n; i++)
    if (rank[i] == 0 && study_feasible(s, &s->trials[i]) == 1)
      ids[k++] = i;
  free(rank);
  return k;
}

void report_print_front(FILE *f, const struct study *s) {
  int *ids = malloc((size_t)(s->n ? s->n : 1) * sizeof *ids);
  int k = ids ? report_front(s, ids) : -1;
  if (k < 0) {
    fprintf(f, "# Pareto front: out of memory\n");
    free(ids);
    return;
  }
  /* by the first objective, best first */
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && study_loss(s, &s->trials[ids[j]]) < study_loss(s, &s->trials[ids[j - 1]]); j--) {
      int t = ids[j];
      ids[j] = ids[j - 1];
      ids[j - 1] = t;
    }
  fprintf(f, "#\n# Pareto front: %d non-dominated feasible complete trial%s, by %s\n# %6s", k,
          k == 1 ? "" : "s", s->metric_names[s->objective], "id");
  for (int m = 0; m < s->n_obj; m++) {
    char label[FOX_NAME_LEN + 8];
    report_metric_label(s, s->obj_metric[m], label, sizeof label);
    fprintf(f, "  %14s", label);
  }
  fputc('\n', f);
  for (int i = 0; i < k; i++) {
    fprintf(f, "  %6d", s->trials[ids[i]].id);
    for (int m = 0; m < s->n_obj; m++) {
      const char *unit;
      double sc = report_metric_scale(s, s->obj_metric[m], &unit);
      fprintf(f, "  %14.6g", s->trials[ids[i]].metrics[s->obj_metric[m]] * sc);
    }
    fputc('\n', f);
  }
  free(ids);
}

json_t *report_json_params(const struct study *s, const double *x, struct fox_err *e) {
  json_t *o = json_object();
  if (!o) {
    fox_errf(e, FOX_EFAIL, "out of memory for a trial's parameters in JSON");
    return NULL;
  }
  for (int i = 0; i < s->space.n; i++) {
    if (isnan(x[i]))
      continue;
    /* A number as a JSON number (a numeric distribution, or a choice that is one; an integer
     * as one: 1000, not 1e+03); a list or a word as the text --set takes. */
    const struct space_param *p = &s->space.p[i];
    int categorical = p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED;
    double num = categorical ? p->choice_num[(int)x[i]] : x[i];
    json_t *v;
    if (!isfinite(num)) {
      char text[FOX_CHOICE_LEN];
      space_format(p, x[i], text, sizeof text);
      v = fox_json_str(text);
    } else if (categorical ? num == floor(num) && fabs(num) < 1e15 : p->integer) {
      v = json_integer((json_int_t)num);
    } else {
      v = json_real(num);
    }
    fox_json_set(o, p->key, v, e);
  }
  return o;
}
