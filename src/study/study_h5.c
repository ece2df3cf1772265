/* study.h5 and trials.csv (DESIGN.md s4): the study table, written whole to a temporary name and
 * renamed after every step, and read back by --resume. */
#include "study/study_h5.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/fsutil.h"
#include "util/h5io.h"

/* Integer columns of struct study_trial, in file order. */
#define NINT_ 7
static const char *const int_cols_[NINT_] = {"id",   "round",  "bracket", "rung",
                                             "next_rung", "epochs", "rank"};
static int *int_field_(struct study_trial *t, int c) {
  int *f[NINT_] = {&t->id, &t->round, &t->bracket, &t->rung, &t->next_rung, &t->epochs, &t->rank};
  return f[c];
}

#define STATUS_W_ 10

/* pbt's lineage columns (written for pbt studies only). */
#define NPBT_ 4
static const char *const pbt_cols_[NPBT_] = {"member", "generation", "parent", "exploited"};
static int *pbt_field_(struct study_trial *t, int c) {
  int *f[NPBT_] = {&t->member, &t->generation, &t->parent, &t->exploited};
  return f[c];
}
static int is_pbt_(const struct study *s) { return s->cfg.study.scheduler == FOX_SCHED_PBT; }

/* Per generation: /pbt/{wall, plan, transfer, bytes, state, segments} and the counts
 * /pbt/{transfers, copied}. */
#define NGEN_ 6
static const char *const gen_cols_[NGEN_] = {"wall_seconds",  "plan_seconds",  "transfer_seconds",
                                             "transfer_bytes", "state_seconds", "segment_seconds"};
static double *gen_field_(struct pbt_gen *g, int c) {
  double *f[NGEN_] = {&g->wall, &g->plan, &g->transfer, &g->bytes, &g->state, &g->segments};
  return f[c];
}

#define NGENI_ 2
static const char *const gen_icols_[NGENI_] = {"transfers", "copied"};
static int *gen_ifield_(struct pbt_gen *g, int c) {
  int *f[NGENI_] = {&g->transfers, &g->copied};
  return f[c];
}

static int write_pbt_(hid_t f, const struct study *s, struct fox_err *e) {
  size_t n = (size_t)s->generations;
  double *col = malloc(n * sizeof *col);
  int *icol = malloc(n * sizeof *icol);
  hid_t g = col && icol ? H5Gcreate2(f, "pbt", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = !col || !icol ? fox_errf(e, FOX_EFAIL, "study.h5: out of memory")
           : g < 0       ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/pbt")
                         : 0;
  for (int c = 0; rc == 0 && c < NGEN_; c++) {
    for (size_t k = 0; k < n; k++)
      col[k] = *gen_field_(&s->gen[k], c);
    rc = h5io_write(g, gen_cols_[c], H5T_NATIVE_DOUBLE, col, n, 0, 0, e);
  }
  for (int c = 0; rc == 0 && c < NGENI_; c++) {
    for (size_t k = 0; k < n; k++)
      icol[k] = *gen_ifield_(&s->gen[k], c);
    rc = h5io_write(g, gen_icols_[c], H5T_NATIVE_INT, icol, n, 0, 0, e);
  }
  if (g >= 0)
    H5Gclose(g);
  free(col), free(icol);
  return rc;
}

/* The costs are bookkeeping: a study.h5 without them (or a damaged column) reads as zeros. */
static void read_pbt_(hid_t f, struct study *s, const char *path) {
  size_t n = (size_t)s->generations, d0, d1;
  double *col = malloc(n * sizeof *col);
  int *icol = malloc(n * sizeof *icol);
  struct fox_err ignore = {0};
  for (int c = 0; col && c < NGEN_; c++) {
    char name[64];
    snprintf(name, sizeof name, "/pbt/%s", gen_cols_[c]);
    if (h5io_exists(f, name) > 0 && h5io_dims(f, name, &d0, &d1, path, &ignore) == 0 &&
        d0 == n && d1 == 0 && h5io_read(f, name, H5T_NATIVE_DOUBLE, col, n, 0, path, &ignore) == 0)
      for (size_t k = 0; k < n; k++)
        *gen_field_(&s->gen[k], c) = isfinite(col[k]) && col[k] >= 0 ? col[k] : 0;
  }
  for (int c = 0; icol && c < NGENI_; c++) {
    char name[64];
    snprintf(name, sizeof name, "/pbt/%s", gen_icols_[c]);
    if (h5io_exists(f, name) > 0 && h5io_dims(f, name, &d0, &d1, path, &ignore) == 0 &&
        d0 == n && d1 == 0 && h5io_read(f, name, H5T_NATIVE_INT, icol, n, 0, path, &ignore) == 0)
      for (size_t k = 0; k < n; k++)
        *gen_ifield_(&s->gen[k], c) = icol[k] >= 0 ? icol[k] : 0;
  }
  free(col), free(icol);
}

struct body_ {
  const struct study *s;
  int finished;
};

static int write_params_(hid_t g, const struct study *s, double *col, struct fox_err *e) {
  for (int i = 0; i < s->space.n; i++) {
    const struct space_param *p = &s->space.p[i];
    for (int k = 0; k < s->n; k++)
      col[k] = s->trials[k].x[i];
    FOX_TRY(h5io_write(g, p->key, H5T_NATIVE_DOUBLE, col, (size_t)s->n, 0, 0, e));
    hid_t d = H5Dopen2(g, p->key, H5P_DEFAULT);
    h5Check(d, e, p->key);
    static const char *const dist[] = {"uniform", "log_uniform", "int_uniform", "q_uniform",
                                       "categorical", "constant"};
    int rc = h5io_attr_write_str(d, "distribution", dist[p->dist], e);
    if (rc == 0 && p->n_choices > 0) {
      const char *choices[FOX_CHOICES_MAX];
      for (int j = 0; j < p->n_choices; j++)
        choices[j] = p->choice[j];
      /* the value is the index of the choice */
      rc = h5io_attr_write_strs(d, "choices", choices, (size_t)p->n_choices, e);
    }
    H5Dclose(d);
    FOX_TRY(rc);
  }
  return 0;
}

static int write_trials_(hid_t g, const struct study *s, struct fox_err *e) {
  size_t n = (size_t)s->n, m = (size_t)s->n_metrics;
  double *col = malloc((n ? n : 1) * (m > 1 ? m : 1) * sizeof *col);
  int *icol = malloc((n ? n : 1) * sizeof *icol);
  uint64_t *ucol = malloc((n ? n : 1) * sizeof *ucol);
  char *strs = calloc(n ? n : 1, FOX_REASON_LEN);
  int rc = col && icol && ucol && strs ? 0 : fox_errf(e, FOX_EFAIL, "study.h5: out of memory");
  for (int c = 0; rc == 0 && c < NINT_; c++) {
    for (size_t k = 0; k < n; k++)
      icol[k] = *int_field_(&s->trials[k], c);
    rc = h5io_write(g, int_cols_[c], H5T_NATIVE_INT, icol, n, 0, 0, e);
  }
  for (int c = 0; rc == 0 && is_pbt_(s) && c < NPBT_; c++) {
    for (size_t k = 0; k < n; k++)
      icol[k] = *pbt_field_(&s->trials[k], c);
    rc = h5io_write(g, pbt_cols_[c], H5T_NATIVE_INT, icol, n, 0, 0, e);
  }
  for (size_t k = 0; k < n; k++) {
    ucol[k] = s->trials[k].seed;
    col[k] = s->trials[k].seconds;
    snprintf(strs + k * STATUS_W_, STATUS_W_, "%s", study_status_names[s->trials[k].status]);
  }
  if (rc == 0)
    rc = h5io_write(g, "seed", H5T_NATIVE_UINT64, ucol, n, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "seconds", H5T_NATIVE_DOUBLE, col, n, 0, 0, e);
  for (int c = 0; rc == 0 && c < 2; c++) { /* derived from the repeats': never read back */
    for (size_t k = 0; k < n; k++)
      col[k] = c == 0 ? s->trials[k].start : s->trials[k].end;
    rc = h5io_write(g, c == 0 ? "start" : "end", H5T_NATIVE_DOUBLE, col, n, 0, 0, e);
  }
  if (rc == 0)
    rc = h5io_write_strs(g, "status", strs, n, STATUS_W_, e);
  for (size_t k = 0; k < n; k++) {
    snprintf(strs + k * FOX_REASON_LEN, FOX_REASON_LEN, "%s", s->trials[k].reason);
    for (size_t j = 0; j < m; j++)
      col[k * m + j] = s->trials[k].metrics[j];
  }
  if (rc == 0)
    rc = h5io_write_strs(g, "reason", strs, n, FOX_REASON_LEN, e);
  if (rc == 0)
    rc = h5io_write(g, "metrics", H5T_NATIVE_DOUBLE, col, n, m, 0, e);
  if (rc == 0) {
    const char *names[FOX_STUDY_METRICS];
    for (size_t j = 0; j < m; j++)
      names[j] = s->metric_names[j];
    hid_t d = H5Dopen2(g, "metrics", H5P_DEFAULT);
    rc = d < 0 ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/trials/metrics")
               : h5io_attr_write_strs(d, "names", names, m, e);
    if (d >= 0)
      H5Dclose(d);
  }
  /* A multi-objective or constrained study: whether each complete trial meets the
   * constraints (1, 0; -1: not complete), its total violation, and its constrained
   * non-domination rank (0: the Pareto front; -1: not complete). Derived from the metrics,
   * so never read back. */
  if (rc == 0 && (s->n_obj > 1 || s->n_con > 0)) {
    for (size_t k = 0; k < n; k++) {
      icol[k] = study_feasible(s, &s->trials[k]);
      col[k] = study_violation(s, &s->trials[k]);
    }
    rc = h5io_write(g, "feasible", H5T_NATIVE_INT, icol, n, 0, 0, e);
    if (rc == 0)
      rc = h5io_write(g, "violation", H5T_NATIVE_DOUBLE, col, n, 0, 0, e);
    if (rc == 0)
      rc = study_pareto_ranks(s, icol, e);
    if (rc == 0)
      rc = h5io_write(g, "pareto_rank", H5T_NATIVE_INT, icol, n, 0, 0, e);
  }
  if (rc == 0) {
    hid_t pg = H5Gcreate2(g, "params", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    rc = pg < 0 ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/trials/params")
                : write_params_(pg, s, col, e);
    if (pg >= 0)
      H5Gclose(pg);
  }
  free(col), free(icol), free(ucol), free(strs);
  return rc;
}

/* Every repeat's progress and every (repeat, fold) evaluation: /trials/cells [n, R x F x M]
 * (row-major by repeat, fold, metric), /trials/spread [n, M] (the std over those cells), and
 * /trials/repeats/{rung, epochs, rank [n, R], seconds, start, end [n, R], seed [R]}; start and
 * end are UTC seconds (NaN: not run), and /trials/start and /trials/end their row's span. */
static int write_cells_(hid_t g, const struct study *s, struct fox_err *e) {
  size_t n = (size_t)s->n, R = (size_t)s->repeats, m = (size_t)s->n_metrics;
  size_t nc = R * (size_t)s->folds * m;
  double *d = malloc((n ? n : 1) * (nc > R ? nc : R) * sizeof *d);
  int *iv = malloc((n ? n : 1) * R * sizeof *iv);
  int rc = d && iv ? 0 : fox_errf(e, FOX_EFAIL, "study.h5: out of memory");
  for (size_t k = 0; rc == 0 && k < n; k++)
    memcpy(d + k * nc, s->trials[k].cells, nc * sizeof *d);
  if (rc == 0)
    rc = h5io_write(g, "cells", H5T_NATIVE_DOUBLE, d, n, nc, 0, e);
  if (rc == 0) {
    hid_t ds = H5Dopen2(g, "cells", H5P_DEFAULT);
    int dims[3] = {s->repeats, s->folds, s->n_metrics};
    rc = ds < 0 ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/trials/cells")
                : h5io_attr_write(ds, "repeats_folds_metrics", H5T_NATIVE_INT, dims, 3, e);
    if (ds >= 0)
      H5Dclose(ds);
  }
  for (size_t k = 0; rc == 0 && k < n; k++)
    memcpy(d + k * m, s->trials[k].spread, m * sizeof *d);
  if (rc == 0)
    rc = h5io_write(g, "spread", H5T_NATIVE_DOUBLE, d, n, m, 0, e);
  hid_t rg = rc == 0 ? H5Gcreate2(g, "repeats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (rc == 0 && rg < 0)
    rc = h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/trials/repeats");
  static const char *const names[3] = {"rung", "epochs", "rank"};
  for (int c = 0; rc == 0 && c < 3; c++) {
    for (size_t k = 0; k < n; k++)
      for (size_t r = 0; r < R; r++) {
        const struct study_rep *p = &s->trials[k].rep[r];
        iv[k * R + r] = c == 0 ? p->rung : c == 1 ? p->epochs : p->rank;
      }
    rc = h5io_write(rg, names[c], H5T_NATIVE_INT, iv, n, R, 0, e);
  }
  for (size_t k = 0; rc == 0 && k < n; k++)
    for (size_t r = 0; r < R; r++)
      d[k * R + r] = s->trials[k].rep[r].seconds;
  if (rc == 0)
    rc = h5io_write(rg, "seconds", H5T_NATIVE_DOUBLE, d, n, R, 0, e);
  for (int c = 0; rc == 0 && c < 2; c++) {
    for (size_t k = 0; k < n; k++)
      for (size_t r = 0; r < R; r++)
        d[k * R + r] = c == 0 ? s->trials[k].rep[r].start : s->trials[k].rep[r].end;
    rc = h5io_write(rg, c == 0 ? "start" : "end", H5T_NATIVE_DOUBLE, d, n, R, 0, e);
  }
  if (rc == 0)
    rc = h5io_write(rg, "seed", H5T_NATIVE_UINT64, s->rep_seed, R, 0, 0, e);
  if (rg >= 0)
    H5Gclose(rg);
  free(d), free(iv);
  return rc;
}

static int body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct body_ *b = ctx;
  const struct study *s = b->s;
  const struct study_config *sc = &s->cfg.study;
  FOX_TRY(h5io_attr_write_str(f, "kind", "study", e));
  FOX_TRY(h5io_attr_write_str(f, "foxopt_version", FOXOPT_VERSION, e));
  FOX_TRY(h5io_attr_write_str(f, "config", s->config_text, e));
  FOX_TRY(h5io_attr_write_str(f, "config_sets", s->config_sets, e));
  FOX_TRY(h5io_attr_write_str(f, "name", sc->name, e));
  FOX_TRY(h5io_attr_write_str(f, "objective", s->metric_names[s->objective], e));
  FOX_TRY(h5io_attr_write_str(f, "direction",
                              sc->direction == FOX_MAXIMIZE ? "maximize" : "minimize", e));
  int ints[3] = {s->total, s->rounds, b->finished};
  FOX_TRY(h5io_attr_write(f, "trials_total", H5T_NATIVE_INT, &ints[0], 1, e));
  FOX_TRY(h5io_attr_write(f, "rounds", H5T_NATIVE_INT, &ints[1], 1, e));
  FOX_TRY(h5io_attr_write(f, "finished", H5T_NATIVE_INT, &ints[2], 1, e));
  FOX_TRY(h5io_attr_write(f, "steps", H5T_NATIVE_INT, &s->steps, 1, e));
  FOX_TRY(h5io_attr_write(f, "wall_seconds", H5T_NATIVE_DOUBLE, &s->wall_seconds, 1, e));
  if (s->reward_scale > 0)
    FOX_TRY(h5io_attr_write(f, "reward_scale", H5T_NATIVE_DOUBLE, &s->reward_scale, 1, e));
  if (s->bars_per_year > 0)
    FOX_TRY(h5io_attr_write(f, "bars_per_year", H5T_NATIVE_DOUBLE, &s->bars_per_year, 1, e));
  if (s->data_bars > 0) {
    FOX_TRY(h5io_attr_write(f, "data_bars", H5T_NATIVE_INT64, &s->data_bars, 1, e));
    FOX_TRY(h5io_attr_write(f, "data_crc32", H5T_NATIVE_UINT32, s->data_crc, 2, e));
  }
  if (s->data_bars > 0 && s->data_meta_known)
    FOX_TRY(h5io_attr_write(f, "data_meta_crc32", H5T_NATIVE_UINT32, &s->data_meta, 1, e));
  FOX_TRY(h5io_attr_write(f, "repeats", H5T_NATIVE_INT, &s->repeats, 1, e));
  FOX_TRY(h5io_attr_write(f, "folds", H5T_NATIVE_INT, &s->folds, 1, e));
  hid_t g = H5Gcreate2(f, "trials", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "/trials");
  int rc = write_trials_(g, s, e);
  if (rc == 0)
    rc = write_cells_(g, s, e);
  H5Gclose(g);
  if (rc == 0 && is_pbt_(s))
    rc = write_pbt_(f, s, e);
  return rc;
}

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static void csv_field_(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s == '\n' ? ' ' : *s, f);
  }
  fputc('"', f);
}

static void csv_number_(FILE *f, double v) {
  if (isnan(v))
    return;
  if (isinf(v))
    fputs(v > 0 ? "inf" : "-inf", f);
  else
    fprintf(f, "%.17g", v);
}

/* ISO 8601 UTC to the millisecond, as pandas and spreadsheets read it; empty: not run. */
static void csv_time_(FILE *f, double t) {
  if (!isfinite(t) || t < 0 || t > 253402300799.0) /* 9999-12-31T23:59:59Z */
    return;
  time_t sec = (time_t)floor(t);
  int ms = (int)floor((t - (double)sec) * 1000.0);
  struct tm tm;
  char buf[32];
  if (gmtime_r(&sec, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm) > 0)
    fprintf(f, "%s.%03dZ", buf, ms > 999 ? 999 : ms);
}

int study_write_csv(const struct study *s, const int *order, int n, FILE *f) {
  int pbt = is_pbt_(s);
  fputs(pbt ? "id,status,round,member,generation,parent,exploited,rung,epochs,seed,rank,seconds,"
              "start,end"
            : "id,status,round,rung,epochs,seed,rank,seconds,start,end",
        f);
  for (int i = 0; i < s->space.n; i++) {
    fputc(',', f);
    csv_field_(f, s->space.p[i].key);
  }
  int spread = s->repeats * s->folds > 1; /* one cell has no spread: no columns for it */
  for (int j = 0; j < s->n_metrics; j++)
    fprintf(f, ",%s", s->metric_names[j]);
  for (int j = 0; spread && j < s->n_metrics; j++)
    fprintf(f, ",%s.std", s->metric_names[j]);
  int mo = s->n_obj > 1 || s->n_con > 0;
  int *prank = mo ? malloc((size_t)(s->n ? s->n : 1) * sizeof *prank) : NULL;
  struct fox_err e = {0};
  if (mo && (!prank || study_pareto_ranks(s, prank, &e) != 0)) {
    free(prank);
    return -1;
  }
  fputs(mo ? ",feasible,pareto_rank,reason\n" : ",reason\n", f);
  if (!order)
    n = s->n;
  for (int k = 0; k < n; k++) {
    const struct study_trial *t = &s->trials[order ? order[k] : k];
    fprintf(f, "%d,%s,%d,", t->id, study_status_names[t->status], t->round);
    if (pbt) {
      fprintf(f, "%d,%d,", t->member, t->generation);
      if (t->parent >= 0)
        fprintf(f, "%d", t->parent);
      fprintf(f, ",%d,", t->exploited);
    }
    fprintf(f, "%d,%d,%llu,%d,%.3f,", t->rung, t->epochs, (unsigned long long)t->seed, t->rank,
            t->seconds);
    csv_time_(f, t->start);
    fputc(',', f);
    csv_time_(f, t->end);
    for (int i = 0; i < s->space.n; i++) {
      char v[FOX_CHOICE_LEN];
      space_format(&s->space.p[i], t->x[i], v, sizeof v);
      fputc(',', f);
      csv_field_(f, v);
    }
    for (int j = 0; j < s->n_metrics; j++) {
      fputc(',', f);
      csv_number_(f, t->metrics[j]);
    }
    for (int j = 0; spread && j < s->n_metrics; j++) {
      fputc(',', f);
      csv_number_(f, t->spread[j]);
    }
    if (mo) {
      int feas = study_feasible(s, t), r = prank[t->id];
      if (feas >= 0)
        fprintf(f, ",%d", feas);
      else
        fputc(',', f);
      if (r >= 0)
        fprintf(f, ",%d", r);
      else
        fputc(',', f);
    }
    fputc(',', f);
    csv_field_(f, t->reason);
    fputc('\n', f);
  }
  free(prank);
  return ferror(f) ? -1 : 0;
}

static int save_csv_(const struct study *s, const int *order, int n, const char *path, int kind,
                     struct fox_err *e) {
  struct fs_out o;
  FILE *f = fs_out_fopen(&o, path, kind, e);
  if (!f)
    return fs_out_end(&o, e->code, e);
  int rc = study_write_csv(s, order, n, f) ? fox_errf(e, FOX_EFAIL, "%s: writing it failed: %s",
                                                      path, strerror(errno))
                                           : 0;
  return fs_out_fclose(&o, f, rc, e);
}

int study_save_csv(const struct study *s, const int *order, int n, const char *path,
                   struct fox_err *e) {
  return save_csv_(s, order, n, path, FS_OUT_TEXT, e);
}

int study_save(const struct study *s, const char *outdir, struct fox_err *e) {
  char path[4200];
  struct body_ b = {s, study_finished(s)};
  snprintf(path, sizeof path, "%s/study.h5", outdir);
  FOX_TRY(h5io_create_own(path, body_, &b, e));
  snprintf(path, sizeof path, "%s/trials.csv", outdir);
  return save_csv_(s, NULL, 0, path, FS_OUT_TEXT | FS_OUT_OWN, e); /* a FIFO there would block */
}

static int read_trials_(hid_t g, struct study *s, size_t n, const char *path,
                        struct fox_err *e) {
  size_t m = (size_t)s->n_metrics;
  double *col = malloc((n ? n : 1) * m * sizeof *col);
  int *icol = malloc((n ? n : 1) * sizeof *icol);
  uint64_t *ucol = malloc((n ? n : 1) * sizeof *ucol);
  char *strs = calloc(n ? n : 1, FOX_REASON_LEN);
  int rc = col && icol && ucol && strs ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  for (int c = 0; rc == 0 && c < NINT_; c++) {
    rc = h5io_read(g, int_cols_[c], H5T_NATIVE_INT, icol, n, 0, path, e);
    for (size_t k = 0; rc == 0 && k < n; k++)
      *int_field_(&s->trials[k], c) = icol[k];
  }
  for (size_t k = 0; k < n; k++) {
    struct study_trial *t = &s->trials[k];
    t->member = t->generation = t->parent = -1;
    t->exploited = 0;
  }
  for (int c = 0; rc == 0 && is_pbt_(s) && c < NPBT_; c++) {
    rc = h5io_read(g, pbt_cols_[c], H5T_NATIVE_INT, icol, n, 0, path, e);
    for (size_t k = 0; rc == 0 && k < n; k++)
      *pbt_field_(&s->trials[k], c) = icol[k];
  }
  if (rc == 0)
    rc = h5io_read(g, "seed", H5T_NATIVE_UINT64, ucol, n, 0, path, e);
  if (rc == 0)
    rc = h5io_read(g, "seconds", H5T_NATIVE_DOUBLE, col, n, 0, path, e);
  for (size_t k = 0; rc == 0 && k < n; k++) {
    s->trials[k].seed = ucol[k];
    s->trials[k].seconds = col[k];
  }
  if (rc == 0)
    rc = h5io_read_strs(g, "status", strs, n, STATUS_W_, path, e);
  for (size_t k = 0; rc == 0 && k < n; k++) {
    int st = -1;
    for (int j = 0; j < 4; j++)
      if (strcmp(strs + k * STATUS_W_, study_status_names[j]) == 0)
        st = j;
    if (st < 0 || s->trials[k].id != (int)k)
      rc = fox_errf(e, FOX_EDATA, "%s: /trials row %zu: bad id or status '%s'", path, k,
                    strs + k * STATUS_W_);
    else
      s->trials[k].status = st;
  }
  if (rc == 0)
    rc = h5io_read_strs(g, "reason", strs, n, FOX_REASON_LEN, path, e);
  for (size_t k = 0; rc == 0 && k < n; k++)
    snprintf(s->trials[k].reason, FOX_REASON_LEN, "%s", strs + k * FOX_REASON_LEN);
  if (rc == 0)
    rc = h5io_read(g, "metrics", H5T_NATIVE_DOUBLE, col, n, m, path, e);
  for (size_t k = 0; rc == 0 && k < n; k++) {
    for (int j = 0; j < FOX_STUDY_METRICS; j++)
      s->trials[k].metrics[j] = j < (int)m ? col[k * m + j] : NAN;
  }
  for (int i = 0; rc == 0 && i < s->space.n; i++) {
    char name[FOX_NAME_LEN + 8];
    snprintf(name, sizeof name, "params/%s", s->space.p[i].key);
    rc = h5io_read(g, name, H5T_NATIVE_DOUBLE, col, n, 0, path, e);
    for (size_t k = 0; rc == 0 && k < n; k++)
      s->trials[k].x[i] = col[k];
  }
  for (size_t k = 0; rc == 0 && k < n; k++)
    for (int i = s->space.n; i < FOX_SPACE_MAX; i++)
      s->trials[k].x[i] = NAN;
  free(col), free(icol), free(ucol), free(strs);
  return rc;
}

/* The repeats and cells of every row; a study.h5 written before repeats holds neither: with one
 * repeat and one fold they are the row's own metrics and progress. */
static int read_cells_(hid_t g, struct study *s, size_t n, const char *path, struct fox_err *e) {
  size_t R = (size_t)s->repeats, m = (size_t)s->n_metrics, nc = R * (size_t)s->folds * m;
  for (size_t k = 0; k < n; k++)
    FOX_TRY(study_trial_alloc(s, &s->trials[k], e));
  if (!h5io_exists(g, "cells")) {
    if (nc != m)
      return fox_errf(e, FOX_EDATA, "%s: /trials/cells is missing, the config runs %d repeat%s "
                                    "x %d fold%s", path, s->repeats, s->repeats > 1 ? "s" : "",
                      s->folds, s->folds > 1 ? "s" : "");
    for (size_t k = 0; k < n; k++) {
      struct study_trial *t = &s->trials[k];
      memcpy(t->cells, t->metrics, m * sizeof *t->cells);
      t->rep[0] = (struct study_rep){t->rung, t->epochs, t->rank, t->seconds, NAN, NAN, 0};
      for (size_t j = 0; j < m; j++)
        t->spread[j] = NAN;
    }
    return 0;
  }
  size_t d0, d1;
  FOX_TRY(h5io_dims(g, "cells", &d0, &d1, path, e));
  if (d0 != n || d1 != nc)
    return fox_errf(e, FOX_EDATA, "%s: /trials/cells is [%zu, %zu], expected [%zu, %zu] (%d "
                                  "repeat%s x %d fold%s x %zu metrics)", path, d0, d1, n, nc,
                    s->repeats, s->repeats > 1 ? "s" : "", s->folds, s->folds > 1 ? "s" : "", m);
  double *d = malloc((n ? n : 1) * (nc > R ? nc : R) * sizeof *d);
  int *iv = malloc((n ? n : 1) * R * sizeof *iv);
  int rc = d && iv ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  if (rc == 0)
    rc = h5io_read(g, "cells", H5T_NATIVE_DOUBLE, d, n, nc, path, e);
  for (size_t k = 0; rc == 0 && k < n; k++)
    memcpy(s->trials[k].cells, d + k * nc, nc * sizeof *d);
  static const char *const names[3] = {"repeats/rung", "repeats/epochs", "repeats/rank"};
  for (int c = 0; rc == 0 && c < 3; c++) {
    rc = h5io_read(g, names[c], H5T_NATIVE_INT, iv, n, R, path, e);
    for (size_t k = 0; rc == 0 && k < n; k++)
      for (size_t r = 0; r < R; r++) {
        struct study_rep *p = &s->trials[k].rep[r];
        *(c == 0 ? &p->rung : c == 1 ? &p->epochs : &p->rank) = iv[k * R + r];
      }
  }
  if (rc == 0)
    rc = h5io_read(g, "repeats/seconds", H5T_NATIVE_DOUBLE, d, n, R, path, e);
  for (size_t k = 0; rc == 0 && k < n; k++)
    for (size_t r = 0; r < R; r++)
      s->trials[k].rep[r].seconds = d[k * R + r];
  for (int c = 0; rc == 0 && c < 2; c++) { /* a study.h5 from before times has none: NaN */
    const char *name = c == 0 ? "repeats/start" : "repeats/end";
    int have = h5io_exists(g, name);
    if (have)
      rc = h5io_read(g, name, H5T_NATIVE_DOUBLE, d, n, R, path, e);
    for (size_t k = 0; rc == 0 && k < n; k++)
      for (size_t r = 0; r < R; r++)
        *(c == 0 ? &s->trials[k].rep[r].start : &s->trials[k].rep[r].end) =
            have ? d[k * R + r] : NAN;
  }
  for (size_t k = 0; rc == 0 && k < n; k++)
    study_trial_times(s, &s->trials[k]);
  /* The spread as recorded with the row's metrics (mid-step the cells of a row may mix two
   * rungs: recomputing from them would disagree with trials.csv). */
  if (rc == 0)
    rc = h5io_read(g, "spread", H5T_NATIVE_DOUBLE, d, n, m, path, e);
  for (size_t k = 0; rc == 0 && k < n; k++)
    for (size_t j = 0; j < FOX_STUDY_METRICS; j++)
      s->trials[k].spread[j] = j < m ? d[k * m + j] : NAN;
  free(d), free(iv);
  return rc;
}

/* A row the study code can index with: every field in its range, every parameter a point of
 * its distribution (NaN where inactive). A damaged file is exit 3, never a crash. */
static int check_trial_(const struct study *s, const struct study_trial *t, const char *path,
                        struct fox_err *e) {
  const struct rung_plan *pl = &s->plan;
  const char *bad = t->round < 0 || t->round >= s->rounds                ? "round"
                    : t->bracket < 0 || t->bracket >= pl->brackets        ? "bracket"
                    : t->rung < -1 || t->rung >= pl->n                    ? "rung"
                    : t->next_rung < 0 || t->next_rung >= pl->n           ? "next_rung"
                    : t->epochs < 0 || t->epochs > s->plan_epochs         ? "epochs"
                    : t->rank < -1                                        ? "rank"
                                                                          : NULL;
  if (bad)
    return fox_errf(e, FOX_EDATA, "%s: /trials row %d: %s out of range", path, t->id, bad);
  if (is_pbt_(s)) {
    /* the row's place is fixed by its id; its parent is a row of the generation before */
    int P = s->cfg.study.population, g = t->id / P;
    bad = t->member != t->id % P || t->generation != g || t->round != g ? "member"
          : g == 0 ? (t->parent != -1 || t->exploited ? "parent" : NULL)
          : t->parent < (g - 1) * P || t->parent >= g * P ? "parent"
          : t->exploited != (t->parent != t->id - P) ? "exploited"
                                                      : NULL;
    if (bad)
      return fox_errf(e, FOX_EDATA, "%s: /trials row %d: %s does not fit a population of %d",
                      path, t->id, bad, P);
  }
  for (int r = 0; r < s->repeats; r++) {
    const struct study_rep *p = &t->rep[r];
    bad = p->rung < -1 || p->rung >= pl->n                 ? "rung"
          : p->epochs < 0 || p->epochs > s->plan_epochs    ? "epochs"
          : p->rank < -1                                   ? "rank"
          : !(p->seconds >= 0)                             ? "seconds"
                                                           : NULL;
    if (bad)
      return fox_errf(e, FOX_EDATA, "%s: /trials/repeats/%s[%d, %d] out of range", path, bad,
                      t->id, r);
  }
  /* The row's epochs are those every repeat has trained: a row that disagrees would have the
   * resume's scrub remove a repeat's good trial file. */
  int least = t->rep[0].epochs;
  for (int r = 1; r < s->repeats; r++)
    least = t->rep[r].epochs < least ? t->rep[r].epochs : least;
  if (least != t->epochs)
    return fox_errf(e, FOX_EDATA, "%s: /trials row %d: epochs %d, but its repeats have trained "
                                  "at least %d (/trials/repeats/epochs)", path, t->id, t->epochs,
                    least);
  for (int i = 0; i < s->space.n; i++) {
    const struct space_param *p = &s->space.p[i];
    double x = t->x[i];
    /* NaN marks an inactive parameter only: an active one without a value ran as the config's
     * default while the table showed it empty, and TPE learnt from a point it never ran. */
    if (isnan(x) && space_active(&s->space, i, t->x))
      return fox_errf(e, FOX_EDATA, "%s: /trials/params/%s[%d] = nan, expected a value: the "
                                    "parameter is active in trial %d", path, p->key, t->id,
                      t->id);
    int ok = isnan(x);
    if (!ok && (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED))
      ok = x == floor(x) && x >= 0 && x < p->n_choices;
    else if (!ok)
      ok = x >= p->lo - 1e-9 * (p->hi - p->lo) && x <= p->hi + 1e-9 * (p->hi - p->lo);
    if (!ok)
      return fox_errf(e, FOX_EDATA, "%s: /trials row %d: params/%s = %g is not a value of its "
                                    "distribution", path, t->id, p->key, x);
  }
  return 0;
}

static int load_body_(hid_t f, struct study *s, const char *path, struct fox_err *e) {
  char kind[32] = "";
  if (h5io_attr_read_str(f, "kind", kind, sizeof kind, path, e) != 0 || strcmp(kind, "study"))
    return fox_errf(e, FOX_EDATA, "%s: not a study file from foxopt run", path);
  size_t cap = 1 << 20;
  char *text = malloc(cap);
  mallocCheck(text, e);
  char *sets = malloc(cap);
  int rc = sets ? h5io_attr_read_str(f, "config", text, cap, path, e)
                : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  if (rc == 0)
    rc = h5io_attr_read_str(f, "config_sets", sets, cap, path, e);
  char name[4300];
  snprintf(name, sizeof name, "%s:/config", path);
  if (rc == 0 && (rc = study_create_text(s, text, sets, name, e)) != 0)
    e->code = rc = FOX_EDATA; /* a file's content, not the user's command line */
  free(text);
  free(sets);
  FOX_TRY(rc);
  int total, rounds;
  rc = h5io_attr_read(f, "trials_total", H5T_NATIVE_INT, &total, 1, path, e);
  if (rc == 0)
    rc = h5io_attr_read(f, "rounds", H5T_NATIVE_INT, &rounds, 1, path, e);
  size_t n = 0, d1;
  if (rc == 0)
    rc = h5io_dims(f, "/trials/id", &n, &d1, path, e);
  /* pbt ends early when a whole generation failed: its total is the rows it made */
  if (rc == 0 && is_pbt_(s) && total < s->total && (size_t)total == n)
    s->total = total;
  if (rc == 0 && (total != s->total || n > (size_t)total))
    rc = fox_errf(e, FOX_EDATA, "%s: %zu trials of %d recorded, the config makes %d", path, n,
                  total, s->total);
  if (rc == 0) {
    s->cap = (int)n + 64;
    s->trials = calloc((size_t)s->cap, sizeof *s->trials);
    rc = s->trials ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  }
  hid_t g = rc == 0 ? H5Gopen2(f, "trials", H5P_DEFAULT) : -1;
  if (rc == 0 && g < 0)
    rc = h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, "/trials");
  if (rc == 0)
    rc = read_trials_(g, s, n, path, e);
  s->n = (int)n; /* from here on study_free frees the rows' repeats and cells */
  if (rc == 0)
    rc = read_cells_(g, s, n, path, e);
  s->rounds = rounds;
  for (size_t k = 0; rc == 0 && k < n; k++)
    rc = check_trial_(s, &s->trials[k], path, e);
  if (g >= 0)
    H5Gclose(g);
  s->n = (int)n;
  struct fox_err ignore = {0}; /* bookkeeping of how long it ran: 0 when absent */
  h5io_attr_read(f, "steps", H5T_NATIVE_INT, &s->steps, 1, path, &ignore);
  h5io_attr_read(f, "wall_seconds", H5T_NATIVE_DOUBLE, &s->wall_seconds, 1, path, &ignore);
  h5io_attr_read(f, "reward_scale", H5T_NATIVE_DOUBLE, &s->reward_scale, 1, path, &ignore);
  h5io_attr_read(f, "bars_per_year", H5T_NATIVE_DOUBLE, &s->bars_per_year, 1, path, &ignore);
  if (h5io_attr_read(f, "data_crc32", H5T_NATIVE_UINT32, s->data_crc, 2, path, &ignore) != 0 ||
      h5io_attr_read(f, "data_bars", H5T_NATIVE_INT64, &s->data_bars, 1, path, &ignore) != 0)
    s->data_bars = 0;
  s->data_meta_known = s->data_bars > 0 && H5Aexists(f, "data_meta_crc32") > 0 &&
                       h5io_attr_read(f, "data_meta_crc32", H5T_NATIVE_UINT32, &s->data_meta, 1,
                                      path, &ignore) == 0;
  if (rc == 0 && is_pbt_(s))
    read_pbt_(f, s, path);
  if (!(s->bars_per_year > 0 && isfinite(s->bars_per_year)))
    s->bars_per_year = 0;
  if (rc != 0)
    study_free(s);
  return rc;
}

int study_load(struct study *s, const char *outdir, struct fox_err *e) {
  char path[4200];
  snprintf(path, sizeof path, "%s/study.h5", outdir);
  return study_load_file(s, path, e);
}

int study_load_file(struct study *s, const char *path, struct fox_err *e) {
  hid_t f;
  FOX_TRY(h5io_open_read(path, "study.h5 from foxopt run", &f, e));
  memset(s, 0, sizeof *s);
  int rc = load_body_(f, s, path, e);
  H5Fclose(f);
  return rc;
}
