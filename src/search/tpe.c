/* The TPE sampler, after Optuna 5.1's TPESampler, with one objective or several. What is the
 * same:
 *  - startup: random proposals (sampler_random_ops, so the first trials equal a random study's)
 *    until n_startup_trials trials are COMPLETE or PRUNED;
 *  - the split (_split_trials): n = the finished trials, n_below = min(ceil(gamma n), 25);
 *    complete trials by loss, then pruned ones by (-step, loss at that step; NaN worst) fill
 *    the good group; everything else is the rest; both groups in trial order;
 *  - several objectives (_split_complete_trials_multi_objective): n_below = ceil(gamma n)
 *    with no cap (default_gamma_multiobjective); of the feasible complete trials, the whole
 *    non-domination fronts that fit, then the last front cut by the greedy HSSP with that
 *    front's own reference point (hypervolume.c); then pruned ones as above, then infeasible
 *    ones (violation > 0, complete or pruned, with one objective or several, as Optuna checks
 *    feasibility first) by violation; the good group's kernels all weigh 1 (Optuna 5.1's
 *    weights_below = ones: no hypervolume-contribution weights any more), the rest's as usual;
 *  - running trials (proposed earlier in this round) join the rest when constant_liar is on
 *    (Optuna's constant liar: a batch spreads out) and are ignored otherwise; they are not in n;
 *  - the estimators (parzen.c): default_weights, the prior kernel, Optuna's bandwidth rule
 *    (consider_endpoints=False, the magic clip), truncated normals on the step-widened, logged
 *    bounds, categorical rows; n_ei_candidates draws from l, the argmax of log l - log g;
 *  - multivariate: Optuna's multivariate=True, group=True: the parameters active in every trial
 *    form one joint group and are sampled first (train.algo among them), then the dqn.* or
 *    ppo.* group of the chosen agent; each group's estimators see the trials in which all of
 *    the group is active (the split itself is over all trials, as Optuna's). multivariate=false:
 *    every parameter on its own (Optuna's multivariate=False), from the trials where it is
 *    active. A parameter with one value (constant, one choice) is not searched (index 0).
 * What differs, and why:
 *  - a FAILED trial (or a complete one whose loss is NaN) is treated as Optuna treats an
 *    infeasible trial (counted in n and in the rest, so TPE steers away from where runs fail),
 *    but never fills the good group even when too few trials succeeded: an infeasible trial has
 *    a violation to rank by, a failed run has none, and a failure is no model of a good region.
 *    Optuna itself drops FAIL trials; like it, they do not end the startup phase;
 *  - the random stream is xoshiro256** from the proposal's seed, not numpy's: the same inputs
 *    give the same proposal bit for bit, but not Optuna's numbers;
 *  - ties in the bandwidth sort and in the loss order are broken by trial order (numpy's sort
 *    is not stable); the inverse CDF is clipped into the bounds (Newton's 1e-8 tolerance could
 *    step a hair outside), and a continuous draw is clipped into [low, high] after exp;
 *  - Optuna's group=True samples every group at the start of a trial, active or not; here only
 *    the chosen agent's group is sampled, and a running trial carries no values for the other
 *    agent's keys. */
#include "search/tpe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/hypervolume.h"
#include "search/pareto.h"
#include "search/parzen.h"

/* A complete trial without a number (any objective's) is a failure. */
static int state_(const struct seen_trial *t) {
  if (t->state != FOX_SEEN_COMPLETE)
    return t->state;
  int nan = isnan(t->loss);
  for (int k = 0; t->n_obj > 1 && k < t->n_obj; k++)
    nan |= isnan(t->values[k]);
  return nan ? FOX_SEEN_FAILED : FOX_SEEN_COMPLETE;
}

static int multi_(const struct seen_trial *hist, int n) {
  return n > 0 && hist[0].n_obj > 1;
}

struct ranked_ {
  double k1, k2;
  int i;
};

static int ranked_cmp_(const void *pa, const void *pb) {
  const struct ranked_ *a = pa, *b = pb;
  if (a->k1 != b->k1)
    return a->k1 < b->k1 ? -1 : 1;
  if (a->k2 != b->k2)
    return a->k2 < b->k2 ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* _split_complete_trials_multi_objective: of the nd feasible complete trials done[] (trial
 * order), the first non-domination fronts that fit in k, then the greedy HSSP's choice from
 * the next front (its own reference point) for the places left. Returns how many it chose. */
static int split_fronts_(const struct seen_trial *hist, const struct ranked_ *done, int nd,
                         int k, signed char *side, struct fox_err *e) {
  if (k > nd)
    k = nd;
  if (k == nd) {
    for (int j = 0; j < nd; j++)
      side[done[j].i] = FOX_TPE_BELOW;
    return nd;
  }
  if (k == 0)
    return 0;
  int m = hist[done[0].i].n_obj;
  double *v = calloc((size_t)nd * m, sizeof *v), *ref = malloc((size_t)m * sizeof *ref);
  int *rank = malloc((size_t)nd * 3 * sizeof *rank);
  if (!v || !ref || !rank) {
    free(v), free(ref), free(rank);
    mallocCheck(NULL, e);
  }
  int *count = rank + nd, *front = rank + 2 * nd, rc = 0;
  for (int j = 0; j < nd; j++)
    memcpy(v + (size_t)j * m, hist[done[j].i].values, (size_t)m * sizeof *v);
  if (pareto_rank(v, NULL, nd, m, rank) != 0) {
    rc = fox_errf(e, FOX_EFAIL, "out of memory%s", fox_src_at(__FILE__, __LINE__));
    goto done;
  }
  memset(count, 0, (size_t)nd * sizeof *count);
  for (int j = 0; j < nd; j++)
    count[rank[j]]++;
  int last = -1, taken = 0;
  while (last + 1 < nd && taken + count[last + 1] <= k)
    taken += count[++last];
  for (int j = 0; j < nd; j++)
    if (rank[j] <= last)
      side[done[j].i] = FOX_TPE_BELOW;
  if (taken < k) {
    int nf = 0;
    for (int j = 0; j < nd; j++)
      if (rank[j] == last + 1) {
        memmove(v + (size_t)nf * m, v + (size_t)j * m, (size_t)m * sizeof *v);
        front[nf++] = done[j].i;
      }
    hv_reference_point(v, nf, m, ref);
    if (hv_hssp(v, nf, m, k - taken, ref, count) != 0) {
      rc = fox_errf(e, FOX_EFAIL, "out of memory%s", fox_src_at(__FILE__, __LINE__));
      goto done;
    }
    for (int j = 0; j < k - taken; j++)
      side[front[count[j]]] = FOX_TPE_BELOW;
  }
  rc = k;
done:
  free(v), free(ref), free(rank);
  return rc;
}

int tpe_split(const struct tpe_config *tc, const struct seen_trial *hist, int n,
              signed char *side, int *counted, struct fox_err *e) {
  struct ranked_ *done = malloc((size_t)(n > 0 ? n : 1) * sizeof *done);
  struct ranked_ *pruned = malloc((size_t)(n > 0 ? n : 1) * sizeof *pruned);
  struct ranked_ *infeasible = malloc((size_t)(n > 0 ? n : 1) * sizeof *infeasible);
  if (!done || !pruned || !infeasible) {
    free(done);
    free(pruned);
    free(infeasible);
    mallocCheck(NULL, e);
  }
  int mo = multi_(hist, n), nd = 0, np = 0, ni = 0;
  *counted = 0;
  for (int i = 0; i < n; i++) {
    int st = state_(&hist[i]);
    side[i] = FOX_TPE_UNUSED;
    if (st == FOX_SEEN_RUNNING) {
      if (tc->constant_liar)
        side[i] = FOX_TPE_ABOVE;
      continue;
    }
    if (st != FOX_SEEN_COMPLETE && st != FOX_SEEN_PRUNED && st != FOX_SEEN_FAILED)
      continue;
    ++*counted;
    side[i] = FOX_TPE_ABOVE;
    /* Optuna's _split_trials checks infeasibility before the state, with one objective or
     * several: an infeasible complete or pruned trial goes last, by its violation. */
    if ((st == FOX_SEEN_COMPLETE || st == FOX_SEEN_PRUNED) && hist[i].violation > 0)
      infeasible[ni++] = (struct ranked_){hist[i].violation, 0, i};
    else if (st == FOX_SEEN_COMPLETE)
      done[nd++] = (struct ranked_){hist[i].loss, 0, i};
    else if (st == FOX_SEEN_PRUNED)
      pruned[np++] = (struct ranked_){-(double)hist[i].step,
                                      isnan(hist[i].loss) ? INFINITY : hist[i].loss, i};
  }
  /* Optuna's default_gamma: ceil in double precision, as Python's math.ceil(0.1 * n), at
   * most 25; default_gamma_multiobjective has no cap. */
  int n_below = (int)ceil(tc->gamma * *counted);
  if (!mo && n_below > 25)
    n_below = 25;
  int rc = 0;
  if (mo) {
    rc = split_fronts_(hist, done, nd, n_below, side, e);
    n_below -= rc > 0 ? rc : 0;
  } else {
    qsort(done, (size_t)nd, sizeof *done, ranked_cmp_);
    for (int j = 0; j < nd && n_below > 0; j++, n_below--)
      side[done[j].i] = FOX_TPE_BELOW;
  }
  qsort(pruned, (size_t)np, sizeof *pruned, ranked_cmp_);
  for (int j = 0; j < np && n_below > 0; j++, n_below--)
    side[pruned[j].i] = FOX_TPE_BELOW;
  qsort(infeasible, (size_t)ni, sizeof *infeasible, ranked_cmp_);
  for (int j = 0; j < ni && n_below > 0; j++, n_below--)
    side[infeasible[j].i] = FOX_TPE_BELOW;
  free(done);
  free(pruned);
  free(infeasible);
  return rc < 0 ? rc : 0;
}

int tpe_gather(const struct seen_trial *hist, int n, const signed char *side, int want,
               const int *params, int n_params, double *rows) {
  int count = 0;
  for (int i = 0; i < n; i++) {
    if (side[i] != want)
      continue;
    int active = 1;
    for (int j = 0; j < n_params; j++)
      active &= !isnan(hist[i].x[params[j]]);
    if (!active)
      continue;
    for (int j = 0; j < n_params; j++)
      rows[(size_t)count * n_params + j] = hist[i].x[params[j]];
    count++;
  }
  return count;
}

/* A parameter that takes one value is not searched. */
static int single_(const struct space_param *p) {
  return p->dist == FOX_DIST_FIXED || (p->dist == FOX_DIST_CATEGORICAL && p->n_choices == 1);
}

/* -1: active in every trial; else the agent whose trials alone have it. */
static int group_of_(const struct space *sp, int i) {
  if (sp->p[i].agent < 0 || sp->algo < 0 || sp->p[sp->algo].n_choices == 1)
    return -1;
  return sp->p[i].agent;
}

static void dim_of_(const struct space_param *p, struct parzen_dim *d) {
  memset(d, 0, sizeof *d);
  if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED)
    d->n_choices = p->n_choices;
  else
    space_numeric(p, &d->low, &d->high, &d->step, &d->log);
}

/* Every value the estimators will read lies in the space: a study resumed over a changed
 * `parameters:` section fails here, naming the trial and key, not deep inside a kernel. */
static int check_history_(const struct space *sp, const struct seen_trial *hist, int n,
                          const signed char *side, struct fox_err *e) {
  struct parzen_dim d[FOX_SPACE_MAX];
  for (int i = 0; i < sp->n; i++)
    dim_of_(&sp->p[i], &d[i]);
  for (int t = 0; t < n; t++) {
    if (side[t] == FOX_TPE_UNUSED)
      continue;
    for (int i = 0; i < sp->n; i++) {
      double v = hist[t].x[i];
      int ok = isnan(v) || (d[i].n_choices > 0
                                ? v >= 0 && v < d[i].n_choices && v == floor(v)
                                : v >= d[i].low && v <= d[i].high);
      if (!ok)
        return fox_errf(e, FOX_EDATA, "tpe: trial %d: parameters.%s = %g is outside the search "
                                      "space (was the parameters: section changed?)",
                        t, sp->p[i].key, v);
    }
  }
  return 0;
}

/* One TPE step over the parameters `idx` (their estimators built jointly): the best of the
 * candidates drawn from l by log l - log g goes into x. */
static int sample_group_(const struct tpe_config *tc, const struct space *sp,
                         const struct seen_trial *hist, int n, const signed char *side,
                         const int *idx, int k, struct rng *r, double *x, struct fox_err *e) {
  int mo = multi_(hist, n);
  if (k == 0)
    return 0;
  struct parzen_dim dim[FOX_SPACE_MAX];
  for (int j = 0; j < k; j++)
    dim_of_(&sp->p[idx[j]], &dim[j]);
  int m = tc->n_ei_candidates;
  double *below = malloc((size_t)(n > 0 ? n : 1) * k * sizeof(double));
  double *above = malloc((size_t)(n > 0 ? n : 1) * k * sizeof(double));
  double *cand = malloc((size_t)m * k * sizeof(double));
  double *lb = malloc((size_t)m * sizeof(double)), *la = malloc((size_t)m * sizeof(double));
  double *ones = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  struct parzen pb = {0}, pa = {0};
  int rc = 0;
  if (!below || !above || !cand || !lb || !la || !ones) {
    rc = fox_errf(e, FOX_EFAIL, "out of memory%s", fox_src_at(__FILE__, __LINE__));
    goto done;
  }
  int nb = tpe_gather(hist, n, side, FOX_TPE_BELOW, idx, k, below);
  int na = tpe_gather(hist, n, side, FOX_TPE_ABOVE, idx, k, above);
  /* Several objectives: the good trials weigh the same (Optuna's weights_below = ones). */
  for (int i = 0; i < nb; i++)
    ones[i] = 1.0;
  if ((rc = parzen_build_weighted(&pb, dim, k, below, nb, mo ? ones : NULL, tc->prior_weight,
                                  e)) != 0 ||
      (rc = parzen_build(&pa, dim, k, above, na, tc->prior_weight, e)) != 0)
    goto done;
  parzen_sample(&pb, r, m, cand);
  if ((rc = parzen_log_pdf(&pb, cand, m, lb, e)) != 0 ||
      (rc = parzen_log_pdf(&pa, cand, m, la, e)) != 0)
    goto done;
  /* The first maximum, as numpy's argmax; a NaN score (never expected) never wins. */
  int best = 0;
  double best_v = -INFINITY;
  for (int c = 0; c < m; c++)
    if (lb[c] - la[c] > best_v) {
      best_v = lb[c] - la[c];
      best = c;
    }
  /* Numeric values onto the parameter's own grid (q_uniform points are tidied decimals). */
  for (int j = 0; j < k; j++) {
    const struct space_param *p = &sp->p[idx[j]];
    double v = cand[(size_t)best * k + j];
    x[idx[j]] = p->n_choices > 0 ? v : space_snap(p, v);
  }
done:
  parzen_free(&pb);
  parzen_free(&pa);
  free(below);
  free(above);
  free(cand);
  free(lb);
  free(la);
  free(ones);
  return rc;
}

/* The searched parameters of group g (-1: the always-active ones). */
static int group_params_(const struct space *sp, int g, int *idx) {
  int k = 0;
  for (int i = 0; i < sp->n; i++)
    if (group_of_(sp, i) == g && !single_(&sp->p[i]))
      idx[k++] = i;
  return k;
}

static int tpe_propose_(const struct tpe_config *tc, const struct space *sp,
                        const struct seen_trial *hist, int n, uint64_t seed, double *x,
                        struct fox_err *e) {
  int finished = 0;
  for (int t = 0; t < n; t++) {
    int st = state_(&hist[t]);
    finished += st == FOX_SEEN_COMPLETE || st == FOX_SEEN_PRUNED;
  }
  if (finished < tc->n_startup_trials)
    return sampler_random_ops.propose(tc, sp, hist, n, seed, x, e);
  if (tc->n_ei_candidates < 1)
    return fox_errf(e, FOX_EUSAGE, "tpe: study.sampler.n_ei_candidates must be >= 1");

  signed char *side = malloc((size_t)(n > 0 ? n : 1));
  mallocCheck(side, e);
  int counted;
  int rc = tpe_split(tc, hist, n, side, &counted, e);
  if (rc == 0)
    rc = check_history_(sp, hist, n, side, e);
  struct rng r;
  rng_seed(&r, seed);
  for (int i = 0; i < sp->n; i++)
    x[i] = single_(&sp->p[i]) ? 0 : NAN;
  /* The always-active group first: it holds train.algo, which decides the second group. */
  int idx[FOX_SPACE_MAX];
  for (int pass = 0; pass < 2 && rc == 0; pass++) {
    int g = pass == 0 ? -1 : space_agent(sp, x);
    if (pass == 1 && (sp->algo < 0 || sp->p[sp->algo].n_choices == 1))
      break; /* no conditional group: everything was always active */
    int k = group_params_(sp, g, idx);
    if (tc->multivariate) {
      rc = sample_group_(tc, sp, hist, n, side, idx, k, &r, x, e);
    } else {
      for (int j = 0; j < k && rc == 0; j++)
        rc = sample_group_(tc, sp, hist, n, side, &idx[j], 1, &r, x, e);
    }
  }
  free(side);
  FOX_TRY(rc);
  space_mask(sp, x);
  return 0;
}

const struct sampler_ops sampler_tpe_ops = {"tpe", tpe_propose_};
