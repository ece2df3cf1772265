/* PBT's generations: rows proposed per generation, the exploit and explore decisions, and the
 * work items that say whose state each segment continues from and which rank holds it. */
#include "study/pbt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/scheduler.h"
#include "util/rng.h"

int pbt_quantile_size(int n, double q) {
  int k = (int)ceil(n * q);
  return k > n / 2 ? n / 2 : k;
}

int pbt_exploit(const double *loss, int n, double q, uint64_t seed, int *donor) {
  int *order = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *order), *pos = order + n;
  if (!order)
    abort(); /* two ints per member */
  /* finite losses ascending, then infinite ones (no value), failed (NaN) last; ties by index */
  scheduler_order(loss, NULL, n, order);
  int healthy = 0;
  for (int r = 0; r < n; r++) {
    pos[order[r]] = r;
    healthy += !isnan(loss[r]);
  }
  int k = pbt_quantile_size(n, q), top = k < healthy ? k : healthy;
  struct rng r;
  rng_seed(&r, seed);
  /* In member order, so that the draws do not depend on the ranking's order. */
  for (int i = 0; i < n; i++) {
    donor[i] = -1;
    if (top > 0 && (isnan(loss[i]) || pos[i] >= n - k))
      donor[i] = order[(int)(rng_uniform(&r) * top)];
  }
  free(order);
  return healthy;
}

void pbt_explore(const struct study_config *sc, const struct space *sp, const double *from,
                 uint64_t seed, double *x) {
  struct rng r;
  rng_seed(&r, seed);
  memcpy(x, from, sizeof(double) * FOX_SPACE_MAX);
  for (int i = 0; i < sp->n; i++) {
    const struct space_param *p = &sp->p[i];
    if (p->dist == FOX_DIST_FIXED || isnan(x[i]))
      continue;
    /* two draws per parameter whatever the branch (a resample has its own stream): one
     * parameter's move does not shift the next one's */
    double u = rng_uniform(&r), pick = rng_uniform(&r);
    if (u < sc->resample_probability) {
      struct rng one;
      rng_seed(&one, rng_hash2(seed, (uint64_t)i + 1));
      x[i] = space_sample_uniform(sp, i, &one);
    } else if (p->dist == FOX_DIST_CATEGORICAL) {
      int k = (int)x[i] + (pick < 0.5 ? -1 : 1);
      x[i] = k < 0 ? 0 : k >= p->n_choices ? p->n_choices - 1 : k;
    } else {
      double f = sc->factors[(int)(pick * sc->n_factors)], v = space_snap(p, x[i] * f);
      /* on a grid (integers, q_uniform) a small value would round back to itself for ever
       * (2 x 0.8 -> 2): a factor that moves it at all moves it one grid step, away from 0 for
       * f > 1 and towards it for f < 1, never across it (a grid without 0: -0.1 x 0.8 stays) */
      double lo, hi, step;
      int lg;
      space_numeric(p, &lo, &hi, &step, &lg);
      if (v == x[i] && step > 0 && f != 1 && x[i] != 0) {
        double w = space_snap(p, x[i] + ((f > 1) == (x[i] > 0) ? step : -step));
        int ok = f > 1 ? fabs(w) > fabs(x[i]) : fabs(w) < fabs(x[i]) && w * x[i] >= 0;
        v = ok ? w : x[i];
      }
      x[i] = v;
    }
  }
  space_mask(sp, x);
}

int pbt_lineage(const struct study *s, int last, int *ids) {
  int n = 0;
  for (int id = last; id >= 0 && n < s->generations; id = s->trials[id].parent)
    ids[n++] = id;
  for (int i = 0; i < n / 2; i++) {
    int t = ids[i];
    ids[i] = ids[n - 1 - i];
    ids[n - 1 - i] = t;
  }
  return n;
}

void pbt_account(struct study *s, const struct work_item *items, int n,
                 const struct work_result *res, double plan, double wall, int moves,
                 double bytes, double move_seconds) {
  if (!s->gen || n <= 0 || items[0].trial < 0 || items[0].trial >= s->n)
    return;
  int g = s->trials[items[0].trial].generation;
  if (g < 0 || g >= s->generations)
    return;
  struct pbt_gen *x = &s->gen[g];
  x->plan += plan;
  x->wall += wall;
  x->transfers += moves;
  x->bytes += bytes;
  x->transfer += move_seconds;
  for (int i = 0; i < n; i++)
    if (res[i].done == FOX_WORK_DONE) {
      x->state += res[i].state_seconds;
      x->copied += res[i].copied;
      x->segments += res[i].seconds;
    }
}

static uint64_t pbt_seed_(const struct study *s, int generation, int member) {
  uint64_t base = rng_hash2(s->cfg.study.seed, 0x7062742d67656e21ULL); /* "pbt-gen!" */
  return rng_hash2(rng_hash2(base, (uint64_t)generation), (uint64_t)member);
}

/* Generation g from the results of generation g - 1 (rows [first, first + P)). */
static int next_generation_(struct study *s, struct fox_err *e) {
  const struct study_config *sc = &s->cfg.study;
  int P = sc->population, g = s->rounds, first = (g - 1) * P;
  double *loss = malloc((size_t)P * sizeof *loss);
  int *donor = malloc((size_t)P * sizeof *donor);
  if (!loss || !donor) {
    free(loss), free(donor);
    return fox_errf(e, FOX_EFAIL, "study: out of memory");
  }
  for (int m = 0; m < P; m++) {
    const struct study_trial *t = &s->trials[first + m];
    loss[m] = study_loss(s, t);
    if (t->status != FOX_ST_FAILED && isnan(loss[m]))
      loss[m] = INFINITY; /* no value ranks last but is no failure */
  }
  int healthy = pbt_exploit(loss, P, sc->quantile, pbt_seed_(s, g, -1), donor);
  int rc = 0;
  if (healthy == 0) {
    s->total = s->n; /* every member failed: nobody to continue from */
  } else {
    for (int m = 0; rc == 0 && m < P; m++) {
      int from = first + (donor[m] >= 0 ? donor[m] : m);
      struct study_trial *t = NULL;
      rc = study_add_trial(s, g, &t, e);
      if (rc != 0)
        break;
      const struct study_trial *src = &s->trials[from];
      t->member = m;
      t->generation = g;
      t->parent = from;
      t->exploited = donor[m] >= 0;
      if (t->exploited)
        pbt_explore(sc, &s->space, src->x, pbt_seed_(s, g, m), t->x);
      else
        memcpy(t->x, src->x, sizeof t->x);
    }
    if (rc == 0)
      s->rounds++;
  }
  free(loss), free(donor);
  return rc;
}

static int to_epochs_(const struct study *s, int generation) {
  long e = (long)(generation + 1) * s->cfg.study.interval;
  return e < s->plan_epochs ? (int)e : s->plan_epochs;
}

/* The segments of row t not yet recorded. */
static void items_(const struct study *s, const struct study_trial *t, struct work_item *items,
                   int *n) {
  const struct study_trial *par = t->parent >= 0 ? &s->trials[t->parent] : NULL;
  /* copy_buffers false: an exploiting member keeps the experience of its own last segment
   * (when that one did not fail: a failed segment saved none) */
  const struct study_trial *own =
      t->generation > 0 ? &s->trials[t->id - s->cfg.study.population] : NULL;
  int buffers = t->exploited && !s->cfg.study.copy_buffers && own &&
                own->status != FOX_ST_FAILED;
  int last = t->generation == s->generations - 1;
  int state = s->cfg.study.function == 0; /* a test function has no state to hold or move */
  for (int r = 0; r < s->repeats; r++) {
    if (t->rep[r].rung >= 0)
      continue; /* recorded before a stop */
    struct work_item *w = &items[(*n)++];
    memset(w, 0, sizeof *w);
    w->trial = t->id;
    w->repeat = r;
    w->seed = s->repeats == 1 ? t->seed : s->rep_seed[r];
    w->from_trial = par ? par->id : t->id;
    w->from_epochs = par ? par->rep[r].epochs : 0;
    w->src_rank = state && par && par->rep[r].held ? par->rep[r].rank : -1;
    w->buffers_trial = buffers ? own->id : -1;
    w->buffers_rank = state && buffers && own->rep[r].held ? own->rep[r].rank : -1;
    w->owner = -1; /* the coordinator places it */
    w->member = t->member;
    w->generation = t->generation;
    w->to_epochs = to_epochs_(s, t->generation);
    w->keep_state = w->hold_state = !last;
    memcpy(w->x, t->x, sizeof w->x);
  }
}

int pbt_next_work(struct study *s, struct work_item *items, int *n, struct fox_err *e) {
  *n = 0;
  for (;;) {
    int P = s->cfg.study.population, first = s->rounds > 0 ? (s->rounds - 1) * P : 0, alive = 0;
    for (int i = first; i < s->n; i++) {
      const struct study_trial *t = &s->trials[i];
      if (t->status != FOX_ST_RUNNING)
        continue;
      alive++;
      items_(s, t, items, n);
    }
    if (*n > 0)
      return 0;
    if (alive > 0) { /* every segment of the generation recorded */
      for (int i = first; i < s->n; i++)
        if (s->trials[i].status == FOX_ST_RUNNING)
          s->trials[i].status = FOX_ST_COMPLETE;
      continue;
    }
    if (s->n >= s->total)
      return 0;
    if (s->rounds == 0) {
      FOX_TRY(study_propose_round(s, e));
      for (int m = 0; m < P; m++) {
        struct study_trial *t = &s->trials[m];
        t->member = m;
        t->generation = 0;
      }
    } else {
      FOX_TRY(next_generation_(s, e));
    }
  }
}
