/* Pareto ranks and constrained domination against a brute-force definition, and NSGA-II's
 * parts (crowding distance, elite selection, generations, tournament, crossover, mutation)
 * against hand-worked cases; proposals are a pure function of (history, seed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fox_check.h"
#include "search/hypervolume.h"
#include "search/nsga2.h"
#include "search/pareto.h"
#include "util/rng.h"

/* rank by definition: 0 when no feasible point dominates it, else 1 + the highest rank of
 * those that do; infeasible points after the last feasible rank, one rank per distinct
 * violation. */
static void brute_rank_(const double *v, const double *viol, int n, int m, int *rank) {
  int fronts = 0;
  for (int pass = 0; pass < n; pass++) /* n passes settle every chain */
    for (int i = 0; i < n; i++) {
      if (viol[i] > 0)
        continue;
      int r = 0;
      for (int j = 0; j < n; j++) {
        if (viol[j] > 0)
          continue;
        int dom = 1, better = 0;
        for (int k = 0; k < m; k++) {
          dom &= v[j * m + k] <= v[i * m + k];
          better |= v[j * m + k] < v[i * m + k];
        }
        if (dom && better && (pass ? rank[j] + 1 : 1) > r)
          r = pass ? rank[j] + 1 : 1;
      }
      rank[i] = r;
    }
  for (int i = 0; i < n; i++)
    if (!(viol[i] > 0) && rank[i] + 1 > fronts)
      fronts = rank[i] + 1;
  for (int i = 0; i < n; i++) {
    if (!(viol[i] > 0))
      continue;
    int below = 0; /* distinct violations smaller than this one */
    for (int j = 0; j < n; j++) {
      int first = viol[j] > 0 && viol[j] < viol[i];
      for (int q = 0; first && q < j; q++)
        first = viol[q] != viol[j];
      below += first;
    }
    rank[i] = fronts + below;
  }
}

static void ranks_(void) {
  struct rng r;
  rng_seed(&r, 42);
  for (int trial = 0; trial < 200; trial++) {
    int n = 1 + (int)(rng_uniform(&r) * 60), m = 1 + trial % 3;
    double v[60 * 3], viol[60];
    int got[60], want[60];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < m; k++) /* a coarse grid: ties and duplicates happen */
        v[i * m + k] = floor(rng_uniform(&r) * 6);
      viol[i] = trial % 2 && rng_uniform(&r) < 0.3 ? floor(rng_uniform(&r) * 4) + 0.5 : 0;
    }
    CHECK(pareto_rank(v, viol, n, m, got) == 0, "pareto_rank");
    brute_rank_(v, viol, n, m, want);
    int same = 1;
    for (int i = 0; i < n; i++)
      same &= got[i] == want[i];
    CHECK(same, "case %d (n %d, m %d): ranks differ from the definition", trial, n, m);
  }
  double a[2] = {1, 2}, b[2] = {1, 3}, c[2] = {0, 5};
  CHECK(pareto_dominates(a, b, 2) && !pareto_dominates(b, a, 2) && !pareto_dominates(a, a, 2) &&
            !pareto_dominates(a, c, 2) && !pareto_dominates(c, a, 2),
        "dominance");
  CHECK(pareto_constrained_dominates(b, 0, a, 1, 2) && !pareto_constrained_dominates(a, 1, b, 0, 2) &&
            pareto_constrained_dominates(b, 1, a, 2, 2) && !pareto_constrained_dominates(a, 2, b, 1, 2),
        "constrained dominance: feasible first, then the smaller violation");
  double ref[2] = {4, 4}, pts[6] = {1, 3, 2, 2, 3, 1};
  CHECK_NEAR(pareto_hypervolume2(pts, 3, ref), 6.0, 1e-12, 0); /* 3 + 2 + 1 */
}

/* The plain O(fronts n^2 m) sort pareto_rank used before ENS-BS (issue 28), word for word: the
 * reference the fast sort must equal on every input. */
static int ref_rank_(const double *values, const double *violation, int n, int m, int *rank) {
  int *idx = malloc((size_t)(n ? n : 1) * 3 * sizeof *idx);
  if (!idx)
    return -1;
  int *count = idx + n, *todo = idx + 2 * n, k = 0;
  for (int i = 0; i < n; i++)
    if (!violation || !(violation[i] > 0))
      idx[k++] = i;
  int left = k, fronts = 0;
  for (int i = 0; i < k; i++)
    todo[i] = 1;
  while (left > 0) {
    for (int i = 0; i < k; i++) {
      count[i] = 0;
      if (!todo[i])
        continue;
      for (int j = 0; j < k && !count[i]; j++)
        count[i] = todo[j] && pareto_dominates(values + (size_t)idx[j] * m,
                                               values + (size_t)idx[i] * m, m);
    }
    for (int i = 0; i < k; i++)
      if (todo[i] && !count[i]) {
        rank[idx[i]] = fronts;
        todo[i] = 0;
        left--;
      }
    fronts++;
  }
  int ni = 0;
  for (int i = 0; violation && i < n; i++)
    if (violation[i] > 0)
      idx[ni++] = i;
  for (int i = 1; i < ni; i++) { /* by violation, then index */
    int p = i, o = idx[i];
    while (p > 0 && violation[idx[p - 1]] > violation[o])
      idx[p] = idx[p - 1], p--;
    idx[p] = o;
  }
  for (int i = 0, r = fronts - 1; i < ni; i++) {
    if (i == 0 || violation[idx[i]] != violation[idx[i - 1]])
      r++;
    rank[idx[i]] = r;
  }
  free(idx);
  return 0;
}

/* The fast sort against the plain one on random inputs: 1 to 4 objectives, continuous values,
 * coarse grids (ties and duplicates), a front as a line (one front of many), infinities and
 * signed zeros, huge values, constraints with repeated violations, up to 2000 points. */
static void ranks_vs_plain_(void) {
  struct rng r;
  rng_seed(&r, 2028);
  enum { NMAX = 2000 };
  double *v = malloc(NMAX * 4 * sizeof *v), *viol = malloc(NMAX * sizeof *viol);
  int *got = malloc(NMAX * sizeof *got), *want = malloc(NMAX * sizeof *want);
  int bad = 0;
  for (int trial = 0; trial < 400 && !bad; trial++) {
    int m = 1 + trial % 4, kind = (trial / 4) % 5;
    /* the plain sort is O(fronts n^2): one objective (a front per value) stays small */
    int big = m > 1 && (trial % 50 == 1 || trial % 50 == 2), mid = m > 1 && trial % 7 == 0;
    int n = big ? NMAX : 1 + (int)(rng_uniform(&r) * (mid ? 800 : 90));
    for (int i = 0; i < n; i++) {
      double t = rng_uniform(&r);
      for (int k = 0; k < m; k++) {
        double x = rng_uniform(&r);
        v[i * m + k] = kind == 0   ? x
                       : kind == 1 ? floor(x * 4) /* coarse: ties, duplicates */
                       : kind == 2 ? (k == 0 ? t : k == 1 ? 1 - t : x) /* one long front */
                       : kind == 3 ? (x < 0.05 ? -INFINITY : x > 0.95 ? INFINITY
                                      : x < 0.5 ? -0.0 : 0.0)
                                   : floor(x * 3) * 1e300; /* huge, few values */
      }
      if (i > 0 && rng_uniform(&r) < 0.1) /* an exact duplicate of an earlier point */
        memcpy(v + i * m, v + (int)(rng_uniform(&r) * i) * m, (size_t)m * sizeof *v);
      viol[i] = trial % 3 == 0 && rng_uniform(&r) < 0.3 ? floor(rng_uniform(&r) * 5) * 0.25 : 0;
    }
    const double *vp = trial % 3 == 1 ? NULL : viol;
    CHECK(pareto_rank(v, vp, n, m, got) == 0 && ref_rank_(v, vp, n, m, want) == 0,
          "pareto_rank");
    for (int i = 0; i < n && !bad; i++)
      if (got[i] != want[i]) {
        bad = 1;
        CHECK(0, "case %d (n %d, m %d, kind %d): point %d has rank %d, the plain sort's is %d",
              trial, n, m, kind, i, got[i], want[i]);
      }
  }
  CHECK(!bad, "fast ranks = plain ranks on 400 random cases");
  free(v), free(viol), free(got), free(want);
}

/* Four points on a front: hand-worked crowding distances and Optuna's order. */
static void crowding_(void) {
  double v[8] = {1, 5, 2, 3, 4, 2, 6, 1}, d[4];
  int idx[4] = {0, 1, 2, 3};
  pareto_crowding(v, idx, 4, 2, d);
  CHECK(isinf(d[0]) && isinf(d[3]), "the ends are infinite");
  CHECK_NEAR(d[1], 3.0 / 5 + 3.0 / 4, 1e-12, 0);
  CHECK_NEAR(d[2], 4.0 / 5 + 2.0 / 4, 1e-12, 0);
  pareto_crowding_sort(v, idx, 4, 2);
  CHECK(idx[0] == 0 && idx[1] == 3 && idx[2] == 1 && idx[3] == 2,
        "crowding order %d %d %d %d, expected 0 3 1 2", idx[0], idx[1], idx[2], idx[3]);
  double same[6] = {1, 2, 1, 3, 1, 4};
  int i3[3] = {0, 1, 2};
  pareto_crowding(same, i3, 3, 2, d);
  CHECK(isinf(d[0]) && d[1] == 1.0 && isinf(d[2]), "a constant objective adds nothing");
}

static struct seen_trial mk_(const double *x, double f0, double f1, double viol, int round) {
  struct seen_trial t = {x, FOX_SEEN_COMPLETE, f0, 0, round, 2, {f0, f1}, viol};
  return t;
}

static void elite_(void) {
  static const double x0[1] = {0};
  /* A, B, C: the front; D, E dominated by B; F infeasible though it dominates everything. */
  struct seen_trial h[6] = {mk_(x0, 1, 5, 0, 0), mk_(x0, 2, 3, 0, 0), mk_(x0, 4, 2, 0, 0),
                            mk_(x0, 3, 6, 0, 0), mk_(x0, 5, 4, 0, 0), mk_(x0, 0, 0, 1, 0)};
  int pool[6] = {0, 1, 2, 3, 4, 5}, out[6];
  int k = nsga2_elite(h, pool, 6, 4, out);
  CHECK(k == 4 && out[0] == 0 && out[1] == 1 && out[2] == 2 && out[3] == 3,
        "elite of 4: the front then D by crowding (got %d: %d %d %d %d)", k, out[0], out[1],
        out[2], out[3]);
  k = nsga2_elite(h, pool, 6, 2, out);
  CHECK(k == 2 && out[0] == 0 && out[1] == 2, "elite of 2: the front's ends (got %d %d)", out[0],
        out[1]);
  k = nsga2_elite(h, pool, 6, 6, out);
  CHECK(k == 6 && out[5] == 5, "the infeasible one comes last");
  /* Tournament: the winner is the first draw if it constrained-dominates the second. */
  for (uint64_t seed = 0; seed < 64; seed++) {
    struct rng r, q;
    rng_seed(&r, seed);
    rng_seed(&q, seed);
    int pop[2] = {1, 5}; /* B feasible, F infeasible: B wins unless both draws are F */
    int w = nsga2_tournament(h, pop, 2, &r);
    int c0 = pop[(int)(rng_uniform(&q) * 2)], c1 = pop[(int)(rng_uniform(&q) * 2)];
    CHECK(w == (c0 == 5 && c1 == 5 ? 5 : 1), "tournament seed %llu", (unsigned long long)seed);
  }
}

/* population 4, rounds of 3 trials: generations 0 0 0 | 0 0 0 | 1 1 1 | 1 1 1 | new: 2. */
static void generations_(void) {
  static const double x0[1] = {0};
  struct seen_trial h[12];
  for (int i = 0; i < 12; i++)
    h[i] = mk_(x0, i, -i, 0, i / 3);
  int gen[13];
  nsga2_generations(h, 12, 4, gen);
  static const int want[13] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2};
  CHECK(memcmp(gen, want, sizeof want) == 0, "generations %d %d %d %d %d %d %d %d %d %d %d %d %d",
        gen[0], gen[1], gen[2], gen[3], gen[4], gen[5], gen[6], gen[7], gen[8], gen[9], gen[10],
        gen[11], gen[12]);
  h[11].state = FOX_SEEN_RUNNING; /* the open round: trial 12 is of round 3 too */
  nsga2_generations(h, 12, 4, gen);
  CHECK(gen[12] == 1, "a trial of the open round: generation %d", gen[12]);
  h[1].state = FOX_SEEN_PRUNED, h[2].state = FOX_SEEN_FAILED, h[3].state = FOX_SEEN_PRUNED;
  h[11].state = FOX_SEEN_COMPLETE;
  nsga2_generations(h, 12, 4, gen);
  CHECK(gen[6] == 0 && gen[9] == 1, "only complete trials count: %d %d", gen[6], gen[9]);
}

/* A space of 6 uniform parameters; a finished generation 0 of 8 trials. */
static void operators_(void) {
  struct space sp;
  memset(&sp, 0, sizeof sp);
  sp.n = 6;
  sp.algo = -1;
  for (int i = 0; i < sp.n; i++) {
    snprintf(sp.p[i].key, sizeof sp.p[i].key, "x%d", i);
    sp.p[i].dist = FOX_DIST_UNIFORM;
    sp.p[i].lo = 0, sp.p[i].hi = 1;
    sp.p[i].agent = -1;
  }
  double xs[8][6];
  struct seen_trial h[8];
  struct rng r;
  rng_seed(&r, 5);
  for (int t = 0; t < 8; t++) {
    for (int i = 0; i < 6; i++)
      xs[t][i] = rng_uniform(&r);
    h[t] = mk_(xs[t], xs[t][0], 1 - xs[t][0] * xs[t][1], 0, 0);
  }
  struct config base;
  config_defaults(&base);
  struct tpe_config tc = base.study.tpe;
  tc.population_size = 8;
  struct fox_err e = {0};
  double x[6], y[6];
  /* every child gene comes from one of two parents; swapping 1: all from the first */
  tc.crossover_prob = 1, tc.mutation_prob = 1e-300, tc.swapping_prob = 1;
  int whole = 0, mixed = 0;
  for (uint64_t seed = 0; seed < 200; seed++) {
    CHECK(sampler_nsga2_ops.propose(&tc, &sp, h, 8, seed, x, &e) == 0, "%s", e.msg);
    int parent = -1;
    for (int t = 0; t < 8; t++)
      if (memcmp(x, xs[t], sizeof x) == 0)
        parent = t;
    whole += parent >= 0;
  }
  CHECK(whole == 200, "swapping_prob 1: the child is a parent (%d of 200)", whole);
  tc.swapping_prob = 0.5;
  for (uint64_t seed = 0; seed < 200; seed++) {
    sampler_nsga2_ops.propose(&tc, &sp, h, 8, seed, x, &e);
    int ok = 1, from[8] = {0}, n_from = 0;
    for (int i = 0; i < 6; i++) {
      int any = 0;
      for (int t = 0; t < 8; t++)
        if (x[i] == xs[t][i]) {
          any = 1;
          if (!from[t]++)
            n_from++;
        }
      ok &= any;
    }
    CHECK(ok, "seed %llu: a gene from no parent", (unsigned long long)seed);
    mixed += n_from >= 2;
  }
  CHECK(mixed > 100, "uniform crossover mixes two parents (%d of 200)", mixed);
  /* mutation 1: nothing inherited */
  tc.mutation_prob = 1;
  for (uint64_t seed = 0; seed < 50; seed++) {
    sampler_nsga2_ops.propose(&tc, &sp, h, 8, seed, x, &e);
    int inherited = 0;
    for (int i = 0; i < 6; i++)
      for (int t = 0; t < 8; t++)
        inherited |= x[i] == xs[t][i];
    CHECK(!inherited && x[0] >= 0 && x[0] <= 1, "mutation_prob 1: every gene drawn anew");
  }
  /* deterministic; generation 0 is the random sampler's proposal */
  tc = base.study.tpe;
  tc.population_size = 8;
  sampler_nsga2_ops.propose(&tc, &sp, h, 8, 77, x, &e);
  sampler_nsga2_ops.propose(&tc, &sp, h, 8, 77, y, &e);
  CHECK(memcmp(x, y, sizeof x) == 0, "the same history and seed give the same proposal");
  sampler_nsga2_ops.propose(&tc, &sp, h, 5, 77, x, &e);
  sampler_random_ops.propose(&tc, &sp, h, 5, 77, y, &e);
  CHECK(memcmp(x, y, sizeof x) == 0, "generation 0 proposes what random does");
}

/* Hypervolume and the greedy HSSP on hand-worked cases (tests/e2e/mo_tpe_ref.py compares
 * both with Optuna's functions on random points). */
static void hypervolume_(void) {
  double r2[2] = {4, 4}, p2[6] = {1, 3, 2, 2, 3, 1};
  CHECK_NEAR(hv_compute(p2, 3, 2, r2), 6.0, 1e-12, 0);
  double r3[3] = {2, 2, 2}, p3[6] = {0, 0, 1, 1, 1, 0}; /* 4 + 2 - 1 */
  CHECK_NEAR(hv_compute(p3, 2, 3, r3), 5.0, 1e-12, 0);
  double r4[4] = {2, 2, 2, 2}, p4[12] = {0, 1, 1, 1, 1, 0, 1, 1, 3, 0, 0, 0}; /* 2 + 2 - 1 */
  CHECK_NEAR(hv_compute(p4, 3, 4, r4), 3.0, 1e-12, 0);
  double one[4] = {1, 2, 3, 4}, zero[8] = {0};
  CHECK_NEAR(hv_compute(zero, 2, 4, one), 24.0, 1e-12, 0); /* a duplicate counts once */
  double ref[2];
  hv_reference_point((double[]){1, -2, 3, -4}, 2, 2, ref);
  CHECK(ref[0] == fmax(1.1 * 3, 0.9 * 3) && ref[1] == 0.9 * -2, "reference point %g %g",
        ref[0], ref[1]);
  hv_reference_point((double[]){0, 1}, 1, 2, ref);
  CHECK(ref[0] == 1e-12, "a zero worst value gives 1e-12, got %g", ref[0]);
  /* 2-D: (2,2) covers 9 of [.., 5]^2; then (1,4) and (4,1) add 1 each, (3,3) nothing: the
   * tie goes to the lexicographically smaller (1,4). */
  int ch[4];
  CHECK(hv_hssp((double[]){1, 4, 2, 2, 4, 1, 3, 3}, 4, 2, 2, (double[]){5, 5}, ch) == 0 &&
            ch[0] == 1 && ch[1] == 0,
        "hssp 2-D chose %d %d, expected 1 0", ch[0], ch[1]);
  /* 3-D: (1,1,1) first (8), then the three corners tie at 1 each: the first, lexsorted. */
  CHECK(hv_hssp((double[]){2, 0, 2, 0, 2, 2, 2, 2, 0, 1, 1, 1}, 4, 3, 2, (double[]){3, 3, 3},
                ch) == 0 &&
            ch[0] == 3 && ch[1] == 1,
        "hssp 3-D chose %d %d, expected 3 1", ch[0], ch[1]);
  /* Fewer distinct points than asked: the distinct ones, then the earliest duplicate. */
  CHECK(hv_hssp((double[]){1, 1, 1, 1, 0, 2, 1, 1}, 4, 2, 3, (double[]){3, 3}, ch) == 0 &&
            ch[0] == 0 && ch[1] == 1 && ch[2] == 2,
        "hssp duplicates chose %d %d %d, expected 0 1 2", ch[0], ch[1], ch[2]);
}

int main(void) {
  ranks_();
  ranks_vs_plain_();
  hypervolume_();
  crowding_();
  elite_();
  generations_();
  operators_();
  return fox_check_done("test_pareto");
}
