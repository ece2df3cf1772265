/* The work of each step: the open round's segments at its current rung (successive halving and
 * Hyperband, with the synchronous decision at each rung), or pbt's generation. Above both the
 * study's rows (study.c) and pbt (pbt.c), so that neither reaches back into the other. */
#include "study/work.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/pbt.h"
#include "study/scheduler.h"

static int alive_(const struct study_trial *t) { return t->status == FOX_ST_RUNNING; }

/* The decision at rung k of the open round: the best 1/eta of those that entered it go on. */
static void decide_(struct study *s, int first, int k) {
  int n = 0;
  int *ids = malloc((size_t)(s->n - first) * sizeof *ids);
  int *idx = malloc((size_t)(s->n - first) * sizeof *idx);
  int *keep = malloc((size_t)(s->n - first) * sizeof *keep);
  double *loss = malloc((size_t)(s->n - first) * sizeof *loss);
  if (!ids || !idx || !keep || !loss)
    abort(); /* a few ints per trial of one round */
  for (int i = first; i < s->n; i++) {
    struct study_trial *t = &s->trials[i];
    int entered = t->next_rung == k && (alive_(t) || t->status == FOX_ST_FAILED);
    if (!entered)
      continue;
    idx[n] = i;
    ids[n] = t->id;
    loss[n] = alive_(t) ? study_loss(s, t) : NAN;
    if (alive_(t) && isnan(loss[n]))
      loss[n] = INFINITY; /* a metric without a value ranks last but is not a failure */
    n++;
  }
  if (k == s->plan.n - 1) {
    for (int j = 0; j < n; j++)
      if (alive_(&s->trials[idx[j]]))
        s->trials[idx[j]].status = FOX_ST_COMPLETE;
  } else {
    scheduler_promote(loss, ids, n, s->cfg.study.eta, keep);
    for (int j = 0; j < n; j++) {
      struct study_trial *t = &s->trials[idx[j]];
      if (!alive_(t))
        continue;
      if (keep[j])
        t->next_rung = k + 1;
      else
        t->status = FOX_ST_PRUNED;
    }
  }
  free(ids), free(idx), free(keep), free(loss);
}

int study_next_work(struct study *s, struct work_item *items, int *n, struct fox_err *e) {
  if (s->cfg.study.scheduler == FOX_SCHED_PBT)
    return pbt_next_work(s, items, n, e);
  *n = 0;
  for (;;) {
    int first = s->n;
    if (s->rounds > 0)
      while (first > 0 && s->trials[first - 1].round == s->rounds - 1)
        first--;
    int alive = 0, k = -1;
    for (int i = first; i < s->n; i++) {
      struct study_trial *t = &s->trials[i];
      if (!alive_(t))
        continue;
      alive++;
      k = t->next_rung;
      for (int r = 0; t->rung < t->next_rung && r < s->repeats; r++) {
        if (t->rep[r].rung >= t->next_rung)
          continue; /* this seed's segment was recorded before a stop */
        struct work_item *w = &items[(*n)++];
        memset(w, 0, sizeof *w);
        w->trial = t->id;
        w->from_trial = t->id;
        w->buffers_trial = w->src_rank = w->buffers_rank = w->owner = -1;
        w->member = w->generation = -1;
        w->repeat = r;
        w->seed = s->repeats == 1 ? t->seed : s->rep_seed[r];
        w->from_epochs = t->rep[r].epochs;
        w->to_epochs = s->plan.epochs[t->next_rung];
        w->keep_state = t->next_rung < s->plan.n - 1;
        memcpy(w->x, t->x, sizeof w->x);
      }
    }
    if (*n > 0)
      return 0;
    if (alive > 0) {
      decide_(s, first, k);
      continue;
    }
    if (s->n >= s->total)
      return 0;
    FOX_TRY(study_propose_round(s, e));
  }
}
