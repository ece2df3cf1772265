/* The selection figures of a study, and how the report says them. */
#include "report/overfit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "report/report.h"

int overfit_compute(const struct study *s, const struct return_matrix *m, int blocks,
                    struct overfit *o, struct fox_err *e) {
  memset(o, 0, sizeof *o);
  o->best = study_best(s);
  o->bars_per_year = s->bars_per_year;
  o->psr = o->dsr = o->sr0 = o->var_sr = o->min_trl = NAN;
  o->m = (struct sr_moments){0, NAN, NAN, NAN};
  o->n_counted = m->n_counted;
  o->n_returns = m->n;
  memcpy(o->counted, m->counted, sizeof o->counted);
  if (blocks < 2 || blocks > 24 || blocks % 2)
    return fox_errf(e, FOX_EUSAGE, "--pbo-blocks %d: expected an even number in [2, 24]", blocks);
  /* The variance of the per-bar Sharpes over every configuration counted (ddof = 1, the
   * paper's sample variance of the trials' estimates). */
  o->var_sr = selection_sr_variance(m->sr, m->n);
  int best_col = -1;
  for (int j = 0; j < m->nc; j++)
    if (m->ctrial[j] == o->best)
      best_col = j;
  if (best_col >= 0 && m->t >= 2) {
    double *col = malloc((size_t)m->t * sizeof *col);
    mallocCheck(col, e);
    for (long k = 0; k < m->t; k++)
      col[k] = m->r[(size_t)k * (size_t)m->nc + (size_t)best_col];
    int rc = selection_moments(col, m->t, &o->m, e);
    free(col);
    FOX_TRY(rc);
    o->t = m->t;
    o->psr = selection_psr(&o->m, 0);
    o->sr0 = selection_expected_max_sr(o->var_sr, m->n_counted);
    o->dsr = selection_dsr(&o->m, o->var_sr, m->n_counted);
    o->min_trl = selection_min_trl(&o->m, 0, 0.05);
  }
  /* CSCV over the complete configurations only: pruned ones stopped early at another budget. */
  o->n_pbo = m->nc;
  if (o->n_pbo < 2) {
    snprintf(o->why_no_pbo, sizeof o->why_no_pbo, "%d complete configuration%s with returns: "
             "PBO needs 2 or more", o->n_pbo, o->n_pbo == 1 ? "" : "s");
    return 0;
  }
  if (m->t / blocks < 2) {
    snprintf(o->why_no_pbo, sizeof o->why_no_pbo, "%ld returns cannot make %d blocks of 2 or "
             "more (--pbo-blocks)", m->t, blocks);
    return 0;
  }
  FOX_TRY(selection_pbo(m->r, m->t, m->nc, blocks, &o->pbo, e));
  o->have_pbo = 1;
  return 0;
}

void overfit_free(struct overfit *o) {
  if (o->have_pbo)
    selection_pbo_free(&o->pbo);
  memset(o, 0, sizeof *o);
}

void overfit_print(FILE *f, const struct study *s, const struct overfit *o) {
  char a[64], b[64], c[64], d[64];
  const char *split = dataset_split_name(s->cfg.eval_split);
  double ann = o->bars_per_year > 0 ? sqrt(o->bars_per_year) : NAN;
  fprintf(f, "# selection: how much of the best result is luck (Bailey & Lopez de Prado)\n");
  fprintf(f, "#   counted: %d configurations that reached an evaluation (%d complete, %d pruned, "
             "%d running, %d failed after one)%s\n",
          o->n_counted, o->counted[FOX_ST_COMPLETE], o->counted[FOX_ST_PRUNED],
          o->counted[FOX_ST_RUNNING], o->counted[FOX_ST_FAILED],
          s->repeats > 1 ? "; each one's returns the mean of its repeats, bar by bar" : "");
  if (o->n_returns < o->n_counted)
    fprintf(f, "#   %d of them have no returns in their trial files (files lost, or a repeat "
               "failed after an evaluation): counted in N, left out of the variance\n",
            o->n_counted - o->n_returns);
  if (s->n_obj > 1 || s->n_con > 0)
    fprintf(f, "#   selected: the %s trial best on %s (the first objective)%s\n",
            s->n_obj > 1 ? "Pareto front's" : "feasible", s->metric_names[s->objective],
            s->n_obj > 1 ? "; a multi-objective study selects no single configuration, so "
                           "these figures are for that one choice" : "");
  if (o->best < 0 || o->t < 2) {
    fprintf(f, "#   no complete trial with returns on the %s split: no deflated Sharpe\n", split);
  } else {
    fprintf(f, "#   trial %d on %ld %s returns%s: per-bar sharpe %s (annualised %s), skewness "
               "%s, kurtosis %s\n",
            o->best, o->t, split, s->folds > 1 ? " (within its folds)" : "",
            report_num(o->m.sr, "%.4g", a, sizeof a),
            report_num(o->m.sr * ann, "%.4g", b, sizeof b),
            report_num(o->m.skew, "%.4g", c, sizeof c),
            report_num(o->m.kurt, "%.4g", d, sizeof d));
    fprintf(f, "#   PSR(0) = %s: the probability that its true Sharpe is above 0, were it the "
               "only configuration tried\n", report_num(o->psr, "%.4f", a, sizeof a));
    fprintf(f, "#   DSR = %s: the same against SR*_0 = %s per bar (annualised %s), the "
               "expected best Sharpe of %d configurations with no edge (cross-trial variance "
               "%s)\n",
            report_num(o->dsr, "%.4f", a, sizeof a), report_num(o->sr0, "%.4g", b, sizeof b),
            report_num(o->sr0 * ann, "%.4g", c, sizeof c), o->n_counted,
            report_num(o->var_sr, "%.3g", d, sizeof d));
    if (o->bars_per_year > 0 && isfinite(o->min_trl))
      fprintf(f, "#   minimum track record for Sharpe > 0 at 95 %%: %s bars (%s years)\n",
              report_num(o->min_trl, "%.0f", a, sizeof a),
              report_num(o->min_trl / o->bars_per_year, "%.3g", b, sizeof b));
    else
      fprintf(f, "#   minimum track record for Sharpe > 0 at 95 %%: %s bars%s\n",
              report_num(o->min_trl, "%.0f", a, sizeof a),
              isinf(o->min_trl) ? " (its Sharpe is not above 0: no length is enough)" : "");
  }
  if (!o->have_pbo) {
    fprintf(f, "#   PBO: - (%s)\n", o->why_no_pbo);
    return;
  }
  const struct pbo_result *p = &o->pbo;
  char few[256];
  fprintf(f, "#   PBO = %s by CSCV over %d complete configurations: %d blocks of %ld returns "
             "(%ld oldest dropped), all %ld splits; the share where the in-sample best ranks at "
             "or below the out-of-sample median\n",
          report_num(p->pbo, "%.4f", a, sizeof a), o->n_pbo, p->blocks, p->block_rows,
          p->dropped_rows, p->combos);
  if (overfit_pbo_caveat(o, few, sizeof few)[0])
    fprintf(f, "#   PBO caveat: %s\n", few);
  fprintf(f, "#   degradation: out-of-sample Sharpe = %s + %s x in-sample Sharpe of the "
             "in-sample best (r2 %s); P(out-of-sample loss) = %s\n",
          report_num(p->intercept, "%.4g", a, sizeof a), report_num(p->slope, "%.4g", b, sizeof b),
          report_num(p->r2, "%.3g", c, sizeof c),
          report_num(p->prob_oos_loss, "%.4f", d, sizeof d));
}

const char *overfit_pbo_caveat(const struct overfit *o, char *buf, size_t n) {
  buf[0] = '\0';
  if (o->have_pbo && o->n_pbo < FOX_PBO_FEW)
    snprintf(buf, n, "from only %d complete configurations: the in-sample best has %d ranks to "
                     "fall in out of sample, so this PBO is coarse and says little; it means "
                     "more from %d or more", o->n_pbo, o->n_pbo, FOX_PBO_FEW);
  return buf;
}

int overfit_json(json_t *j, const struct overfit *o, struct fox_err *e) {
  fox_json_set(j, "dsr", fox_json_num(o->dsr), e);
  fox_json_set(j, "psr", fox_json_num(o->psr), e);
  fox_json_set(j, "min_track_record", fox_json_num(o->min_trl), e);
  fox_json_set(j, "pbo", fox_json_num(o->have_pbo ? o->pbo.pbo : NAN), e);
  char few[256];
  if (overfit_pbo_caveat(o, few, sizeof few)[0])
    fox_json_set(j, "pbo_caveat", fox_json_str(few), e);
  fox_json_set(j, "degradation_slope", fox_json_num(o->have_pbo ? o->pbo.slope : NAN), e);
  fox_json_set(j, "n_trials_counted", json_integer(o->n_counted), e);
  fox_json_set(j, "n_with_returns", json_integer(o->n_returns), e);
  json_t *c = json_object();
  fox_json_set(c, "complete", json_integer(o->counted[FOX_ST_COMPLETE]), e);
  fox_json_set(c, "pruned", json_integer(o->counted[FOX_ST_PRUNED]), e);
  fox_json_set(c, "running", json_integer(o->counted[FOX_ST_RUNNING]), e);
  fox_json_set(c, "failed", json_integer(o->counted[FOX_ST_FAILED]), e);
  fox_json_set(j, "counted", c, e);
  fox_json_set(j, "selected_trial", json_integer(o->best), e);
  fox_json_set(j, "returns", json_integer(o->t), e);
  fox_json_set(j, "sharpe_per_bar", fox_json_num(o->m.sr), e);
  fox_json_set(j, "skewness", fox_json_num(o->m.skew), e);
  fox_json_set(j, "kurtosis", fox_json_num(o->m.kurt), e);
  fox_json_set(j, "expected_max_sharpe", fox_json_num(o->sr0), e);
  fox_json_set(j, "sharpe_variance", fox_json_num(o->var_sr), e);
  fox_json_set(j, "bars_per_year", fox_json_num(o->bars_per_year > 0 ? o->bars_per_year : NAN), e);
  fox_json_set(j, "pbo_configurations", json_integer(o->n_pbo), e);
  json_t *logits = json_array();
  if (!o->have_pbo) {
    fox_json_set(j, "pbo_blocks", json_null(), e);
    fox_json_set(j, "pbo_logits", logits, e);
    return e->code;
  }
  const struct pbo_result *p = &o->pbo;
  fox_json_set(j, "pbo_blocks", json_integer(p->blocks), e);
  fox_json_set(j, "pbo_splits", json_integer(p->combos), e);
  fox_json_set(j, "degradation_intercept", fox_json_num(p->intercept), e);
  fox_json_set(j, "degradation_r2", fox_json_num(p->r2), e);
  fox_json_set(j, "prob_oos_loss", fox_json_num(p->prob_oos_loss), e);
  for (long k = 0; k < p->combos; k++)
    fox_json_push(logits, fox_json_num(p->logits[k]), e);
  fox_json_set(j, "pbo_logits", logits, e);
  return e->code;
}
