/* NSGA-II, after Optuna 5.1's NSGAIISampler with its defaults (UniformCrossover, no mutation
 * operator: a mutated parameter is drawn anew by the random sampler). What is the same:
 *  - generations (BaseGASampler): a trial's generation is the highest generation among the
 *    complete trials, plus one once population_size of that generation are complete;
 *    generation 0 is random (sampler_random_ops, so it equals a random study's first trials);
 *  - the parent population of generation g is the elite of (the complete trials of g - 1) +
 *    (the parents of g - 1), fixed when g's first trial is proposed: whole fronts by
 *    constrained non-domination rank (feasible fronts, then infeasible trials by total
 *    violation), the last front cut by crowding distance (_crowding_distance_sort);
 *  - a child: with crossover_prob, uniform crossover of two parents chosen by binary
 *    tournament on constrained domination (the second from the others), each parameter from
 *    the second parent with swapping_prob (categorical ones first, then numeric ones, as
 *    Optuna draws them); otherwise a copy of a parent drawn uniformly; then every parameter
 *    is mutated with mutation_prob (default 1 / the number of searched parameters), a
 *    mutated one (and any not searched) drawn uniformly from its distribution;
 *  - only COMPLETE trials enter populations: pruned, failed and running ones never do.
 * What differs, and why:
 *  - foxopt proposes in synchronous rounds from the history alone: a trial's generation
 *    counts the trials complete when its round was proposed (the earlier rounds), and a
 *    generation's parents are fixed from the trials complete when its first trial's round was
 *    proposed. Everything is derived from the history at each proposal (a generation's elite
 *    is memoised, used only for the identical pool), so the result is a pure function of
 *    (history, seed) and the same on 1 or N threads or ranks;
 *  - the parent population is kept in trial order (Optuna's cache returns it so for every
 *    child but the generation's first, which sees the elite's order);
 *  - the random stream is xoshiro256** from the proposal's seed, not numpy's;
 *  - a conditional parameter inactive in the chosen parent (NaN) is drawn anew, as a mutation;
 *    Optuna's intersection search space would leave it to the random sampler as well. */
#include "search/nsga2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/pareto.h"

int nsga2_values(const struct seen_trial *t, double *v) {
  if (t->n_obj < 1) {
    v[0] = t->loss;
    return 1;
  }
  memcpy(v, t->values, (size_t)t->n_obj * sizeof *v);
  return t->n_obj;
}

/* Complete with every objective a number: a NaN objective is a failed trial to Optuna. */
static int complete_(const struct seen_trial *t) {
  if (t->state != FOX_SEEN_COMPLETE)
    return 0;
  double v[FOX_OBJ_MAX];
  int m = nsga2_values(t, v);
  for (int j = 0; j < m; j++)
    if (isnan(v[j]))
      return 0;
  return 1;
}

/* The round of the trial being proposed: that of the running trials (the open round), or the
 * next one. */
static int round_of_new_(const struct seen_trial *hist, int n) {
  if (n == 0)
    return 0;
  return hist[n - 1].state == FOX_SEEN_RUNNING ? hist[n - 1].round : hist[n - 1].round + 1;
}

void nsga2_generations(const struct seen_trial *hist, int n, int population_size, int *gen) {
  int maxgen = 0, count = 0, folded = 0;
  for (int i = 0; i <= n; i++) {
    int round = i < n ? hist[i].round : round_of_new_(hist, n);
    /* fold in the trials of earlier rounds, in trial order (Optuna's cache) */
    for (; folded < i && hist[folded].round < round; folded++) {
      if (!complete_(&hist[folded]))
        continue;
      if (gen[folded] > maxgen) {
        maxgen = gen[folded];
        count = 1;
      } else if (gen[folded] == maxgen) {
        count++;
      }
    }
    gen[i] = maxgen + (count >= population_size);
  }
}

int nsga2_elite(const struct seen_trial *hist, const int *pool, int k, int population_size,
                int *out) {
  int m = 1;
  for (int i = 0; i < k; i++)
    m = hist[pool[i]].n_obj > m ? hist[pool[i]].n_obj : m;
  double *val = malloc((size_t)(k ? k : 1) * (FOX_OBJ_MAX + 1) * sizeof *val);
  int *rank = malloc((size_t)(k ? k : 1) * 2 * sizeof *rank);
  if (!val || !rank) {
    free(val), free(rank);
    return -1;
  }
  double *viol = val + (size_t)k * m;
  int *front = rank + k;
  for (int i = 0; i < k; i++) {
    nsga2_values(&hist[pool[i]], val + (size_t)i * m);
    viol[i] = hist[pool[i]].violation;
  }
  int n_out = 0, rc = pareto_rank(val, viol, k, m, rank);
  for (int r = 0; rc == 0 && n_out < population_size; r++) {
    int nf = 0;
    for (int i = 0; i < k; i++)
      if (rank[i] == r)
        front[nf++] = i;
    if (nf == 0)
      break; /* every rank is used up to the last: no trial left */
    if (n_out + nf >= population_size) {
      rc = pareto_crowding_sort(val, front, nf, m);
      nf = population_size - n_out;
    }
    for (int i = 0; i < nf; i++)
      out[n_out++] = pool[front[i]];
  }
  free(val), free(rank);
  return rc == 0 ? n_out : -1;
}

static int choice_(struct rng *r, int k) {
  int i = (int)(rng_uniform(r) * k);
  return i < k ? i : k - 1;
}

int nsga2_tournament(const struct seen_trial *hist, const int *pop, int k, struct rng *r) {
  int c0 = pop[choice_(r, k)], c1 = pop[choice_(r, k)];
  double a[FOX_OBJ_MAX], b[FOX_OBJ_MAX];
  int m = nsga2_values(&hist[c0], a);
  nsga2_values(&hist[c1], b);
  return pareto_constrained_dominates(a, hist[c0].violation, b, hist[c1].violation, m) ? c0 : c1;
}

static int int_cmp_(const void *a, const void *b) {
  return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* The elite of each generation's pool, kept from one proposal to the next: a study proposes
 * every trial from the whole history, and recomputing the elite of every past generation made
 * each nsga2 proposal O(n^2 / population) (issue 28). An entry is used only when its pool is the
 * same trials with the same objectives and violations, so a proposal stays a pure function of
 * (history, seed); any other history (another study, a test's) just recomputes. */
struct elite_memo_ {
  int k, np, pop;
  int *pool, *par;    /* [k], [np] */
  double *key;        /* [k][FOX_OBJ_MAX + 2]: n_obj, the values (or loss), the violation */
};
static _Thread_local struct elite_memo_ *memo_;
static _Thread_local int memo_n_;

static void memo_key_(const struct seen_trial *t, double *key) {
  double v[FOX_OBJ_MAX];
  memset(key, 0, (FOX_OBJ_MAX + 2) * sizeof *key);
  int m = nsga2_values(t, v);
  key[0] = t->n_obj;
  memcpy(key + 1, v, (size_t)m * sizeof *v);
  key[FOX_OBJ_MAX + 1] = t->violation;
}

/* Memo entry g's elite when it was made from this pool, else -1. */
static int memo_find_(int g, const struct seen_trial *hist, const int *pool, int k, int pop,
                      int *par) {
  if (g >= memo_n_ || memo_[g].pool == NULL || memo_[g].k != k || memo_[g].pop != pop ||
      memcmp(memo_[g].pool, pool, (size_t)k * sizeof *pool) != 0)
    return -1;
  double key[FOX_OBJ_MAX + 2];
  for (int i = 0; i < k; i++) {
    memo_key_(&hist[pool[i]], key);
    /* bitwise: -0.0 and 0.0, or two NaN payloads, count as different and recompute */
    if (memcmp(key, memo_[g].key + (size_t)i * (FOX_OBJ_MAX + 2), sizeof key) != 0)
      return -1;
  }
  memcpy(par, memo_[g].par, (size_t)memo_[g].np * sizeof *par);
  return memo_[g].np;
}

/* Keeps entry g (a failed allocation keeps nothing: the memo only saves time). */
static void memo_store_(int g, const struct seen_trial *hist, const int *pool, int k, int pop,
                        const int *par, int np) {
  if (g >= memo_n_) {
    int cap = memo_n_ ? memo_n_ : 16;
    while (cap <= g)
      cap *= 2;
    struct elite_memo_ *nm = realloc(memo_, (size_t)cap * sizeof *nm);
    if (!nm)
      return;
    memset(nm + memo_n_, 0, (size_t)(cap - memo_n_) * sizeof *nm);
    memo_ = nm;
    memo_n_ = cap;
  }
  struct elite_memo_ *e = &memo_[g];
  free(e->pool), free(e->par), free(e->key);
  e->pool = malloc((size_t)(k ? k : 1) * sizeof *e->pool);
  e->par = malloc((size_t)(np ? np : 1) * sizeof *e->par);
  e->key = malloc((size_t)(k ? k : 1) * (FOX_OBJ_MAX + 2) * sizeof *e->key);
  if (!e->pool || !e->par || !e->key) {
    free(e->pool), free(e->par), free(e->key);
    memset(e, 0, sizeof *e);
    return;
  }
  e->k = k, e->np = np, e->pop = pop;
  memcpy(e->pool, pool, (size_t)k * sizeof *pool);
  memcpy(e->par, par, (size_t)np * sizeof *par);
  for (int i = 0; i < k; i++)
    memo_key_(&hist[pool[i]], e->key + (size_t)i * (FOX_OBJ_MAX + 2));
}

/* The parents of generation g: parents[g] for g = 1 .. want, each in trial order. `pool` has
 * room for 2 population_size + n + 1; `by_gen` for n + want + 2 ints. */
static int parents_(const struct seen_trial *hist, int n, const int *gen, int want,
                    int population_size, int *par, int *n_par, int *pool, int *by_gen) {
  int new_round = round_of_new_(hist, n);
  /* the trials of each generation in trial order (a counting sort), and its first trial */
  int *start = by_gen + n; /* [want + 2] */
  memset(start, 0, (size_t)(want + 2) * sizeof *start);
  for (int j = 0; j < n; j++)
    if (gen[j] <= want)
      start[gen[j] + 1]++;
  for (int g = 0; g <= want; g++)
    start[g + 1] += start[g];
  int *next = pool + population_size + n + 1; /* room left after the pool's own */
  memcpy(next, start, (size_t)(want + 1) * sizeof *next);
  for (int j = 0; j < n; j++)
    if (gen[j] <= want)
      by_gen[next[gen[j]]++] = j;
  int np = 0; /* the parents of the previous generation: par[0 .. np) */
  for (int g = 1; g <= want; g++) {
    int round = start[g] < start[g + 1] ? hist[by_gen[start[g]]].round : new_round;
    int k = 0;
    for (int a = start[g - 1]; a < start[g]; a++) {
      int j = by_gen[a];
      if (hist[j].round < round && complete_(&hist[j]))
        pool[k++] = j;
    }
    memcpy(pool + k, par, (size_t)np * sizeof *pool);
    k += np;
    int got = memo_find_(g, hist, pool, k, population_size, par);
    if (got < 0) {
      np = nsga2_elite(hist, pool, k, population_size, par);
      if (np < 0)
        return -1;
      qsort(par, (size_t)np, sizeof *par, int_cmp_);
      memo_store_(g, hist, pool, k, population_size, par, np);
    } else {
      np = got;
    }
  }
  *n_par = np;
  return 0;
}

/* A parameter that takes one value is not searched (Optuna: distribution.single()). */
static int single_(const struct space_param *p) {
  return p->dist == FOX_DIST_FIXED || (p->dist == FOX_DIST_CATEGORICAL && p->n_choices == 1);
}

static int nsga2_propose_(const struct tpe_config *tc, const struct space *sp,
                          const struct seen_trial *hist, int n, uint64_t seed, double *x,
                          struct fox_err *e) {
  int pop_size = tc->population_size;
  if (pop_size < 2)
    return fox_errf(e, FOX_EUSAGE, "nsga2: study.sampler.population_size must be >= 2");
  /* gen[n + 1], then by_gen[n + generations + 2] (a generation is at least one trial) */
  int *gen = malloc((size_t)(3 * n + 4) * sizeof *gen);
  int *par = malloc((size_t)(2 * pop_size + n + 1) * sizeof *par);
  int *pool = malloc((size_t)(3 * pop_size + 2 * n + 4) * sizeof *pool);
  if (!gen || !par || !pool) {
    free(gen), free(par), free(pool);
    mallocCheck(NULL, e);
  }
  nsga2_generations(hist, n, pop_size, gen);
  int g = gen[n], np = 0, rc = 0;
  if (g > 0 && parents_(hist, n, gen, g, pop_size, par, &np, pool, gen + n + 1) != 0)
    rc = fox_errf(e, FOX_EFAIL, "out of memory%s", fox_src_at(__FILE__, __LINE__));
  free(gen);
  if (rc != 0 || np == 0) {
    free(par), free(pool);
    FOX_TRY(rc);
    return sampler_random_ops.propose(tc, sp, hist, n, seed, x, e);
  }
  struct rng r;
  rng_seed(&r, seed);
  /* The searched parameters as Optuna orders a child's: categorical ones, then numeric ones
   * after a crossover; the space's order after a copy. */
  int order[FOX_SPACE_MAX], k = 0;
  double child[FOX_SPACE_MAX];
  for (int i = 0; i < sp->n; i++)
    child[i] = NAN;
  if (rng_uniform(&r) < tc->crossover_prob) {
    int p0 = nsga2_tournament(hist, par, np, &r), p1 = p0;
    if (np > 1) {
      int others = 0;
      for (int i = 0; i < np; i++)
        if (par[i] != p0)
          pool[others++] = par[i];
      p1 = nsga2_tournament(hist, pool, others, &r);
    }
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < sp->n; i++) {
        if (single_(&sp->p[i]) || (sp->p[i].dist == FOX_DIST_CATEGORICAL) != (pass == 0))
          continue;
        order[k++] = i;
        child[i] = hist[rng_uniform(&r) >= tc->swapping_prob ? p1 : p0].x[i];
      }
  } else {
    int p = par[choice_(&r, np)];
    for (int i = 0; i < sp->n; i++)
      if (!single_(&sp->p[i])) {
        order[k++] = i;
        child[i] = hist[p].x[i];
      }
  }
  double mp = tc->mutation_prob > 0 ? tc->mutation_prob : 1.0 / (k > 1 ? k : 1);
  for (int j = 0; j < k; j++)
    if (!(rng_uniform(&r) < mp))
      x[order[j]] = child[order[j]];
    else
      child[order[j]] = NAN; /* mutated: drawn anew below */
  /* Everything not inherited, in the space's order: the random sampler's draws. */
  for (int i = 0; i < sp->n; i++) {
    int inherited = 0;
    for (int j = 0; j < k; j++)
      inherited |= order[j] == i && !isnan(child[i]);
    if (!inherited)
      x[i] = space_sample_uniform(sp, i, &r);
  }
  free(par), free(pool);
  space_mask(sp, x);
  return 0;
}

const struct sampler_ops sampler_nsga2_ops = {"nsga2", nsga2_propose_};
