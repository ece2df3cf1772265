/* The best member's schedule and each generation's costs, as text and as JSON. */
#include "report/pbt_report.h"

#include <math.h>
#include <stdlib.h>

#include "report/report.h"
#include "study/pbt.h"

int pbt_report_lineage(const struct study *s, int *ids) {
  int best = s->cfg.study.scheduler == FOX_SCHED_PBT ? study_best(s) : -1;
  return best < 0 ? 0 : pbt_lineage(s, best, ids);
}

static void print_schedule_(FILE *f, const struct study *s, const int *ids, int n) {
  const struct study_trial *last = &s->trials[ids[n - 1]];
  char label[FOX_NAME_LEN + 8];
  report_metric_label(s, s->objective, label, sizeof label);
  const char *unit;
  double scale = report_metric_scale(s, s->objective, &unit);
  fprintf(f, "\n# pbt: the schedule of the best member (%d, row %d): each generation's row, the "
             "row it continued from, whether that was an exploit of another member, and the "
             "parameters it trained with\n", last->member, last->id);
  fprintf(f, "%-10s %6s %6s %9s %6s %14s", "generation", "row", "parent", "exploited", "epochs",
          label);
  for (int i = 0; i < s->space.n; i++)
    fprintf(f, " %14s", s->space.p[i].key);
  fputc('\n', f);
  for (int k = 0; k < n; k++) {
    const struct study_trial *t = &s->trials[ids[k]];
    char par[16] = "-";
    if (t->parent >= 0)
      snprintf(par, sizeof par, "%d", t->parent);
    fprintf(f, "%-10d %6d %6s %9s %6d %14.6g", t->generation, t->id, par,
            t->exploited ? "yes" : "no", t->epochs, t->metrics[s->objective] * scale);
    for (int i = 0; i < s->space.n; i++) {
      const struct space_param *p = &s->space.p[i];
      char v[FOX_CHOICE_LEN];
      if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED || isnan(t->x[i]))
        space_format(p, t->x[i], v, sizeof v);
      else
        snprintf(v, sizeof v, "%.6g", t->x[i]); /* the table's width; study.h5 has it whole */
      fprintf(f, " %14s", v[0] ? v : "-");
    }
    fputc('\n', f);
  }
}

static void print_costs_(FILE *f, const struct study *s) {
  fprintf(f, "\n# pbt: what each generation cost: its wall time (rank 0), the planning "
             "(ranking, exploit, explore), the states moved between ranks (the slowest rank's "
             "time), the states saved and restored in the segments (summed), and how many of "
             "those restored were copied within a device where their segment ran\n");
  fprintf(f, "%-10s %10s %10s %9s %12s %12s %10s %10s %7s\n", "generation", "wall_s", "plan_s",
          "transfers", "transfer_MB", "transfer_s", "state_s", "segment_s", "copied");
  for (int g = 0; g < s->generations; g++) {
    const struct pbt_gen *x = &s->gen[g];
    if (x->wall == 0 && x->segments == 0)
      continue; /* not run yet */
    fprintf(f, "%-10d %10.3f %10.6f %9d %12.3f %12.6f %10.3f %10.3f %7d\n", g, x->wall,
            x->plan, x->transfers, x->bytes / 1e6, x->transfer, x->state, x->segments,
            x->copied);
  }
}

void pbt_report_print(FILE *f, const struct study *s) {
  if (s->cfg.study.scheduler != FOX_SCHED_PBT)
    return;
  int *ids = malloc((size_t)s->generations * sizeof *ids);
  int n = ids ? pbt_report_lineage(s, ids) : 0;
  if (n > 0)
    print_schedule_(f, s, ids, n);
  else
    fprintf(f, "\n# pbt: no complete generation yet: no schedule to show\n");
  free(ids);
  print_costs_(f, s);
}

int pbt_report_json(json_t *o, const struct study *s, struct fox_err *e) {
  int *ids = malloc((size_t)(s->generations > 0 ? s->generations : 1) * sizeof *ids);
  mallocCheck(ids, e);
  int n = pbt_report_lineage(s, ids);
  json_t *sched = json_array(), *gens = json_array();
  for (int k = 0; k < n; k++) {
    const struct study_trial *t = &s->trials[ids[k]];
    json_t *g = json_object();
    fox_json_set(g, "generation", json_integer(t->generation), e);
    fox_json_set(g, "member", json_integer(t->member), e);
    fox_json_set(g, "trial", json_integer(t->id), e);
    fox_json_set(g, "parent", json_integer(t->parent), e);
    fox_json_set(g, "exploited", json_boolean(t->exploited), e);
    fox_json_set(g, "epochs", json_integer(t->epochs), e);
    fox_json_set(g, "objective", fox_json_num(t->metrics[s->objective]), e);
    fox_json_set(g, "params", report_json_params(s, t->x, e), e);
    fox_json_push(sched, g, e);
  }
  for (int g = 0; g < s->generations; g++) {
    const struct pbt_gen *x = &s->gen[g];
    json_t *c = json_object();
    fox_json_set(c, "generation", json_integer(g), e);
    fox_json_set(c, "wall_seconds", fox_json_num(x->wall), e);
    fox_json_set(c, "plan_seconds", fox_json_num(x->plan), e);
    fox_json_set(c, "transfers", json_integer(x->transfers), e);
    fox_json_set(c, "transfer_bytes", fox_json_num(x->bytes), e);
    fox_json_set(c, "transfer_seconds", fox_json_num(x->transfer), e);
    fox_json_set(c, "state_seconds", fox_json_num(x->state), e);
    fox_json_set(c, "segment_seconds", fox_json_num(x->segments), e);
    fox_json_set(c, "copied", json_integer(x->copied), e);
    fox_json_push(gens, c, e);
  }
  free(ids);
  fox_json_set(o, "pbt_schedule", sched, e);
  fox_json_set(o, "pbt_generations", gens, e);
  return e->code;
}
