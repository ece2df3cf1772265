/* Rung budgets, Hyperband's brackets and the promotion rule. */
#include "study/scheduler.h"

#include <math.h>
#include <stdlib.h>

int scheduler_plan(const struct study_config *sc, int train_epochs, struct rung_plan *out,
                   struct fox_err *e) {
  out->n = 1;
  out->brackets = 1;
  if (sc->scheduler == FOX_SCHED_NONE || sc->scheduler == FOX_SCHED_PBT) { /* pbt: its own
                                                                              generations */
    out->epochs[0] = train_epochs;
    return 0;
  }
  int lo = sc->min_epochs, hi = sc->max_epochs ? sc->max_epochs : train_epochs;
  if (lo > hi)
    return fox_errf(e, FOX_EUSAGE, "study.scheduler.min_epochs %d is above max_epochs %d%s", lo,
                    hi, sc->max_epochs ? "" : " (train.epochs)");
  /* K = floor(log_eta(hi / lo)) rungs below the full budget. */
  int k = 0;
  for (long long b = lo; b * sc->eta <= hi; b *= sc->eta)
    k++;
  int n = k < FOX_MAX_RUNGS - 1 ? k : FOX_MAX_RUNGS - 1;
  long long b = lo;
  for (int i = 0; i < n; i++, b *= sc->eta)
    out->epochs[i] = (int)b;
  out->epochs[n] = hi;
  out->n = n + 1;
  if (sc->scheduler == FOX_SCHED_HYPERBAND)
    out->brackets = sc->brackets > 0 && sc->brackets < out->n ? sc->brackets : out->n;
  return 0;
}

int scheduler_bracket(const struct study_config *sc, const struct rung_plan *p, int round) {
  return sc->scheduler == FOX_SCHED_HYPERBAND ? round % p->brackets : 0;
}

int scheduler_round_trials(const struct study_config *sc, const struct rung_plan *p, int bracket) {
  if (bracket == 0)
    return sc->round_size;
  int k = p->n - 1;
  double n = ceil((double)sc->round_size * (k + 1) / ((k - bracket + 1) * pow(sc->eta, bracket)));
  return n < 1 ? 1 : n > sc->round_size ? sc->round_size : (int)n;
}

/* Better first: finite losses ascending (infinite after), failed (NaN) last; ties by id. */
struct key_ {
  double loss;
  int id, at;
};

static int better_(const void *a, const void *b) {
  const struct key_ *x = a, *y = b;
  if (isnan(x->loss) != isnan(y->loss))
    return isnan(x->loss) ? 1 : -1;
  if (!isnan(x->loss) && x->loss != y->loss)
    return x->loss < y->loss ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

void scheduler_order(const double *loss, const int *ids, int n, int *order) {
  struct key_ *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
  if (!k)
    abort(); /* a few words per trial of one rung */
  for (int i = 0; i < n; i++)
    k[i] = (struct key_){loss[i], ids ? ids[i] : i, i};
  /* one sort, where counting each entrant's betters was O(n^2): 3.3 s for a rung of 32,000 */
  qsort(k, (size_t)n, sizeof *k, better_);
  for (int r = 0; r < n; r++)
    order[r] = k[r].at;
  free(k);
}

void scheduler_promote(const double *loss, const int *ids, int n, int eta, int *keep) {
  int quota = n / eta > 1 ? n / eta : 1;
  int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
  if (!order)
    abort();
  scheduler_order(loss, ids, n, order);
  for (int r = 0; r < n; r++)
    keep[order[r]] = r < quota && !isnan(loss[order[r]]);
  free(order);
}
