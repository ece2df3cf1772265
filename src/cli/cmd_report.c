/* foxopt report: what a study found (DESIGN.md s3) - the best trials as a table, the whole
 * table as CSV, plots of the history, the best equity curve and each parameter, and all of it
 * as one self-contained HTML page. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "data/dataset.h"
#include "views/html.h"
#include "report/importance.h"
#include "report/overfit.h"
#include "report/pbt_report.h"
#include "report/report.h"
#include "report/returns.h"
#include "report/test_split.h"
#include "study/study_h5.h"
#include "util/fsutil.h"
#include "util/dirlock.h"

static const struct cli_opt opts_[] = {
    {"--top", "K", "rows in the table (default 10); with --test, the configurations tested"},
    {"--csv", "FILE", "every trial, best first, in the columns of trials.csv, to FILE"},
    {"--no-plots", NULL, "no figure files (NAME.svg, NAME.png); --html's page keeps its own"},
    {"--json", NULL, "one JSON object instead of the table: the best trials and the figures "
                     "(dsr, psr, min_track_record, pbo, degradation_slope, n_trials_counted)"},
    {"--html", NULL, "also OUTDIR/report.html: the whole report as one self-contained page "
                     "(inline CSS and SVG plots; no script, font, image or fetch), readable on a "
                     "phone: the facts, the best K trials, the history, each parameter, the best "
                     "equity against buy-and-hold (from data.path's close prices over the same "
                     "folds; without the dataset the page says so), the selection figures with "
                     "the CSCV logits, the test looks, and the Pareto front of a study with "
                     "several objectives"},
    {"--pbo-blocks", "S", "CSCV's blocks, even, 2 .. 24 (default 16: C(16, 8) = 12870 splits)"},
    {"--test", NULL, "the final test: the K best complete configurations (by the objective on "
                     "the evaluation split) evaluated once on the test split, every repeat, the "
                     "study's folds; their test metrics beside the validation ones, with the PSR "
                     "and the DSR on test (N: every configuration ever looked at on test). "
                     "Recorded in OUTDIR/test.h5: every later report says the test split has "
                     "been looked at. Takes OUTDIR's lock (refused while a run holds it)"},
    {"--backend", "B", "where --test runs the policies: auto, cpu or cuda (default: where each "
                       "was trained)"},
    {NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_report = {
    .name = "report",
    .summary = "best trials, luck (DSR, PBO), --test, CSV, plots, one-page --html",
    .synopsis = "OUTDIR [--top K] [--csv FILE] [--no-plots] [--json] [--html]\n"
                "[--pbo-blocks S] [--test [--backend auto|cpu|cuda]]",
    .about =
        "Reads OUTDIR/study.h5 (written by foxopt run, also while it runs) and prints the best K\n"
        "trials as a fixed-width table: complete trials ranked by the objective in its direction\n"
        "(with several objectives or constraints: by constrained non-domination rank first, the\n"
        "Pareto front printed under the table), then pruned ones (most epochs first), running\n"
        "ones, failed ones; with the objective, the key metrics of an agent study and every\n"
        "parameter (empty where inactive). With study.repeats or eval.folds each metric is the\n"
        "study's aggregate over repeats x folds.\n"
        "\n"
        "A pbt study's segments rank latest generation first; under the table, the best member's\n"
        "schedule (its lineage of segments with their parameters) and each generation's costs.\n"
        "Under the table, each parameter's importance (PED-ANOVA, as Optuna's default evaluator):\n"
        "how much its values among the best 10 % of the complete trials differ from its values\n"
        "among all of them, normalised to sum 1, for each objective (none under pbt, or with\n"
        "fewer than 20 complete trials).\n"
        "Under the table, for an agent study, how much of the best result is luck, from every\n"
        "evaluated configuration's per-bar returns on the evaluation split (its trial files):\n"
        "  PSR(0)  the probabilistic Sharpe ratio of the best complete trial against 0\n"
        "  DSR     its deflated Sharpe ratio (Bailey & Lopez de Prado 2014): PSR against the\n"
        "          expected maximum Sharpe of N configurations with no edge, N counting every\n"
        "          configuration that reached an evaluation, pruned ones included\n"
        "  MinTRL  the minimum track record length for Sharpe > 0 at 95 %\n"
        "  PBO     the probability of backtest overfitting (Bailey, Borwein, Lopez de Prado & Zhu\n"
        "          2017) by combinatorially symmetric cross-validation over the complete\n"
        "          configurations, with the performance degradation (OOS on IS Sharpe)\n"
        "It also draws, into OUTDIR, each figure of --html's page as NAME.svg (standalone: its\n"
        "title, the plot, its legend) and NAME.png (the same SVG rasterised by librsvg):\n"
        "  history          the objective of each trial by id, by status, and the best so far\n"
        "  curves           each trial's objective by epoch, the rungs drawn\n"
        "  timeline         each trial's start and end (UTC)\n"
        "  parallel         parallel coordinates of the complete trials\n"
        "  importance       the parameter importance (importance-METRIC with several objectives)\n"
        "  params           the objective against each parameter, one panel each\n"
        "  best_equity      the evaluation equity of the best trial against buy-and-hold\n"
        "  pbo_logits       the distribution of the CSCV logits (when there is a PBO)\n"
        "  pareto           the Pareto front (several objectives)\n"
        "  pbt_schedule     a pbt study's best member's parameters and objective by generation\n"
        "A figure the study cannot have yet is left out with a note.",
    .opts = opts_,
    .exits = "0 ok, 1 failure, 2 bad usage or\n"
             "            OUTDIR in use (--test), 3 OUTDIR holds no readable study.h5 or a damaged\n"
             "            trial file or dataset",
    .run = cmd_report,
};

struct report_args_ {
  const char *outdir, *csv, *backend;
  int top, plots, json, blocks, test, html;
};

static int parse_(int argc, char **argv, struct report_args_ *a, struct fox_err *e) {
  *a = (struct report_args_){NULL, NULL, NULL, 10, 1, 0, 16, 0, 0};
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v;
    if (strcmp(s, "--no-plots") == 0) {
      a->plots = 0;
    } else if (strcmp(s, "--json") == 0) {
      a->json = 1;
    } else if (strcmp(s, "--test") == 0) {
      a->test = 1;
    } else if (strcmp(s, "--html") == 0) {
      a->html = 1;
    } else if (strcmp(s, "--top") == 0 || strcmp(s, "--pbo-blocks") == 0) {
      long long k;
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      if (s[2] == 't') {
        FOX_TRY(cli_parse_i64("--top", v, 1, 1000000000, &k, e));
        a->top = (int)k;
      } else {
        FOX_TRY(cli_parse_i64("--pbo-blocks", v, 2, 24, &k, e));
        if (k % 2)
          return fox_errf(e, FOX_EUSAGE, "--pbo-blocks %lld: expected an even number (CSCV "
                                         "splits the blocks in halves)", k);
        a->blocks = (int)k;
      }
    } else if (strcmp(s, "--csv") == 0 || strcmp(s, "--backend") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      if (s[2] == 'c')
        a->csv = v;
      else
        a->backend = v;
    } else if (!a->outdir) {
      a->outdir = s;
    } else {
      return fox_errf(e, FOX_EUSAGE, "one OUTDIR only ('%s' and '%s')", a->outdir, s);
    }
  }
  if (!a->outdir)
    return fox_errf(e, FOX_EUSAGE, "OUTDIR is required (foxopt help report)");
  if (a->backend && !a->test)
    return fox_errf(e, FOX_EUSAGE, "--backend goes with --test");
  if (a->backend && strcmp(a->backend, "auto") && strcmp(a->backend, "cpu") &&
      strcmp(a->backend, "cuda"))
    return fox_errf(e, FOX_EUSAGE, "--backend '%s': expected auto, cpu or cuda",
                    a->backend);
  return 0;
}

/* {"metric": value, ...} of one row's metrics (with a prefix: {"prefix.metric": ...}). */
static json_t *jmetrics_(const struct study *s, const double *v, const char *prefix,
                         struct fox_err *e) {
  json_t *o = json_object();
  for (int m = 0; m < s->n_metrics; m++) {
    char name[FOX_NAME_LEN + 16];
    if (prefix)
      snprintf(name, sizeof name, "%s.%s", prefix, metrics_names[m]);
    fox_json_set(o, prefix ? name : s->metric_names[m], fox_json_num(v[m]), e);
  }
  return o;
}

/* The rows, and with several objectives or constraints each one's feasibility and Pareto rank
 * (rank: study_pareto_ranks, NULL without several objectives). */
static json_t *json_rows_(const struct study *s, const int *order, int k, const int *rank,
                          struct fox_err *e) {
  json_t *rows = json_array();
  for (int r = 0; r < k && r < s->n; r++) {
    const struct study_trial *t = &s->trials[order[r]];
    json_t *o = json_object();
    fox_json_set(o, "id", json_integer(t->id), e);
    fox_json_set(o, "status", fox_json_str(study_status_names[t->status]), e);
    fox_json_set(o, "epochs", json_integer(t->epochs), e);
    if (s->n_obj > 1 || s->n_con > 0) {
      int fe = study_feasible(s, t);
      fox_json_set(o, "feasible", fe < 0 ? json_null() : json_boolean(fe), e);
    }
    if (rank)
      fox_json_set(o, "pareto_rank",
                   rank[t->id] >= 0 ? json_integer(rank[t->id]) : json_null(), e);
    fox_json_set(o, "params", report_json_params(s, t->x, e), e);
    fox_json_set(o, "metrics", jmetrics_(s, t->metrics, NULL, e), e);
    if (s->repeats * s->folds > 1)
      fox_json_set(o, "std", jmetrics_(s, t->spread, NULL, e), e);
    fox_json_push(rows, o, e);
  }
  return rows;
}

/* The test look's table: validation objective beside the test metrics. */
static void print_test_(FILE *f, const struct study *s, const struct test_row *rows, int k,
                        const struct test_record *rec) {
  const struct study_config *sc = &s->cfg.study;
  static const char *const agg[] = {"mean", "median", "interquartile mean", "mean (lcb)"};
  fprintf(f, "\n# the test split: look %d (%s), the %d best complete configuration%s by %s, "
             "each %s over %d repeat%s x %d fold%s\n",
          rec->looks, rec->last, k, k > 1 ? "s" : "", s->metric_names[s->objective],
          s->repeats * s->folds > 1 ? agg[sc->aggregate] : "one run", s->repeats,
          s->repeats > 1 ? "s" : "", s->folds, s->folds > 1 ? "s" : "");
  static const char *const key[] = {"total_return", "sharpe", "max_drawdown", "trades"};
  char lab[FOX_NAME_LEN + 8];
  report_metric_label(s, s->objective, lab, sizeof lab);
  fprintf(f, "# %4s  %22s", "id", lab);
  for (int i = 0; i < 4; i++) {
    int j = metrics_find(key[i]);
    const char *unit;
    report_metric_scale(s, j, &unit);
    char h[64];
    snprintf(h, sizeof h, unit[0] ? "test.%s[%s]" : "test.%s", key[i], unit);
    fprintf(f, "  %20s", h);
  }
  fprintf(f, "  %12s  %9s\n", "test PSR(0)", "test DSR");
  for (int r = 0; r < k; r++) {
    const struct test_row *w = &rows[r];
    const char *unit;
    double sv = report_metric_scale(s, s->objective, &unit);
    fprintf(f, "  %4d  %22.6g", w->trial, s->trials[w->trial].metrics[s->objective] * sv);
    for (int i = 0; i < 4; i++) {
      int j = metrics_find(key[i]);
      double sc2 = report_metric_scale(s, j, &unit);
      fprintf(f, "  %20.6g", w->metrics[j] * sc2);
    }
    fprintf(f, "  %12.4f  %9.4f\n", w->psr, w->dsr);
  }
  fprintf(f, "# test DSR: against the expected best Sharpe of the %d configuration%s ever "
             "looked at on the test split; each look at the test split spends it\n",
          rec->n_seen, rec->n_seen > 1 ? "s" : "");
}

static json_t *json_test_(const struct study *s, const struct test_row *rows, int k,
                          const struct test_record *rec, struct fox_err *e) {
  json_t *o = json_object(), *list = json_array();
  fox_json_set(o, "looks", json_integer(rec->looks), e);
  fox_json_set(o, "first_look", fox_json_str(rec->first), e);
  fox_json_set(o, "last_look", fox_json_str(rec->last), e);
  fox_json_set(o, "configurations_looked_at", json_integer(rec->n_seen), e);
  for (int r = 0; r < k; r++) {
    json_t *w = json_object();
    fox_json_set(w, "id", json_integer(rows[r].trial), e);
    fox_json_set(w, "validation", jmetrics_(s, s->trials[rows[r].trial].metrics, NULL, e), e);
    fox_json_set(w, "test", jmetrics_(s, rows[r].metrics, "test", e), e);
    fox_json_set(w, "psr", fox_json_num(rows[r].psr), e);
    fox_json_set(w, "dsr", fox_json_num(rows[r].dsr), e);
    fox_json_push(list, w, e);
  }
  fox_json_set(o, "rows", list, e);
  return o;
}

/* The --json object: the study, its counts and objectives, the front, the best k rows, the
 * selection figures (fig, or NULL), the test looks, pbt's schedule and this run's test rows. */
static int json_report_(const struct study *s, const int *order, int top,
                        const struct overfit *fig, const struct test_record *rec,
                        const struct test_row *rows, int k, int test, struct fox_err *e) {
  int c[4];
  report_count(s, c);
  const char *dir[2] = {"minimize", "maximize"};
  json_t *j = json_object();
  fox_json_set(j, "study", fox_json_str(s->cfg.study.name), e);
  fox_json_set(j, "objective", fox_json_str(s->metric_names[s->objective]), e);
  fox_json_set(j, "direction", json_string(dir[s->cfg.study.direction == FOX_MAXIMIZE]), e);
  fox_json_set(j, "n_trials", json_integer(s->n), e);
  fox_json_set(j, "total", json_integer(s->total), e);
  fox_json_set(j, "complete", json_integer(c[FOX_ST_COMPLETE]), e);
  fox_json_set(j, "pruned", json_integer(c[FOX_ST_PRUNED]), e);
  fox_json_set(j, "failed", json_integer(c[FOX_ST_FAILED]), e);
  fox_json_set(j, "running", json_integer(c[FOX_ST_RUNNING]), e);
  fox_json_set(j, "repeats", json_integer(s->repeats), e);
  fox_json_set(j, "folds", json_integer(s->folds), e);
  fox_json_set(j, "best", json_integer(study_best(s)), e);
  json_t *objs = json_array();
  for (int m = 0; m < s->n_obj; m++) {
    json_t *o = json_object();
    fox_json_set(o, "metric", fox_json_str(s->metric_names[s->obj_metric[m]]), e);
    fox_json_set(o, "direction", json_string(dir[s->obj_dir[m] == FOX_MAXIMIZE]), e);
    fox_json_push(objs, o, e);
  }
  fox_json_set(j, "objectives", objs, e);
  int *rank = NULL;
  if (s->n_obj > 1 && e->code == 0) { /* the front: the feasible complete trials no other one dominates */
    rank = malloc((size_t)(s->n ? s->n : 1) * sizeof *rank);
    if (!rank)
      fox_errf(e, FOX_EFAIL, "out of memory");
    else if (study_pareto_ranks(s, rank, e) != 0) {
      free(rank);
      rank = NULL;
    }
    json_t *front = json_array();
    for (int i = 0; rank && i < s->n; i++)
      if (rank[i] == 0 && study_feasible(s, &s->trials[i]) == 1)
        fox_json_push(front, json_integer(i), e);
    fox_json_set(j, "pareto_front", front, e);
  }
  fox_json_set(j, "trials", json_rows_(s, order, top, rank, e), e);
  free(rank);
  if (e->code == 0)
    report_importance_json(j, s, e);
  if (fig)
    overfit_json(j, fig, e);
  fox_json_set(j, "test_looks", json_integer(rec->looks), e);
  if (s->cfg.study.scheduler == FOX_SCHED_PBT)
    pbt_report_json(j, s, e);
  if (test)
    fox_json_set(j, "test", json_test_(s, rows, k, rec, e), e);
  return fox_json_print(stdout, j, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17),
                        "report --json", e);
}

/* --test: the K best complete configurations on the test split, under OUTDIR's lock. */
static int test_(const struct study *s, const struct report_args_ *a, const int *order,
                 struct test_row **rows, int *k, struct test_record *rec, struct fox_err *e) {
  *k = 0;
  if (s->cfg.study.function)
    return fox_errf(e, FOX_EUSAGE, "--test: %s holds a test-function study: there is "
                                   "no test split", a->outdir);
  if (s->cfg.eval_split == FOX_SPLIT_TEST)
    return fox_errf(e, FOX_EUSAGE, "--test: the study in %s chose its configurations on "
                                   "the test split (eval.split: test): there is no untouched "
                                   "test left to run", a->outdir);
  int c[4];
  report_count(s, c);
  if (c[FOX_ST_COMPLETE] == 0)
    return fox_errf(e, FOX_EUSAGE, "--test: no complete configuration in %s yet: "
                                   "nothing to test", a->outdir);
  int n = a->top < c[FOX_ST_COMPLETE] ? a->top : c[FOX_ST_COMPLETE];
  *rows = calloc((size_t)n, sizeof **rows);
  int *ids = malloc((size_t)n * sizeof *ids);
  int rc = *rows && ids ? 0 : fox_errf(e, FOX_EFAIL, "out of memory");
  for (int i = 0; rc == 0 && i < n; i++)
    ids[i] = order[i]; /* complete trials rank first */
  if (rc == 0)
    rc = test_split_run(s, a->outdir, ids, n, a->backend, *rows, rec, e);
  free(ids);
  if (rc == 0)
    *k = n;
  return rc;
}

/* A directory of gnuplot's data a killed report of foxopt 0.1 left (report.tmp.PID.XXXXXX):
 * flat, every file in it ours. */
static void remove_flat_dir_(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d))) {
    char path[4400];
    if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name) < (int)sizeof path)
      unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

/* A figure file's temporary: NAME.svg.tmp.PID or NAME.png.tmp.PID (*len: where PID ends). */
static int figure_tmp_(const char *name, long *pid, int *len) {
  const char *t = strstr(name, ".tmp.");
  if (!t || t - name < 5 || (strncmp(t - 4, ".svg", 4) != 0 && strncmp(t - 4, ".png", 4) != 0))
    return 0;
  return sscanf(t, ".tmp.%ld%n", pid, len) == 1 && (*len += (int)(t - name), 1);
}

/* Temporaries of a report that was killed (report.html.tmp.PID, a figure's NAME.svg.tmp.PID or
 * NAME.png.tmp.PID, and test.h5.tmp.PID under --test's lock, PID no longer running; an old
 * version's plot directories): only run --resume swept them, and a finished study seldom sees
 * one. A live run's own temporaries are never touched. */
static void sweep_(const char *outdir, int test) {
  DIR *d = opendir(outdir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d))) {
    long pid = 0;
    int len = 0, plots = 0;
    if (sscanf(de->d_name, "report.html.tmp.%ld%n", &pid, &len) != 1 &&
        (!test || sscanf(de->d_name, "test.h5.tmp.%ld%n", &pid, &len) != 1) &&
        !(plots = sscanf(de->d_name, "report.tmp.%ld.%*6[A-Za-z0-9]%n", &pid, &len) == 1) &&
        !figure_tmp_(de->d_name, &pid, &len))
      continue;
    if (len == 0 || de->d_name[len] || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno == EPERM)
      continue; /* not ours, or its report still runs */
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", outdir, de->d_name);
    if (plots)
      remove_flat_dir_(path);
    else
      remove(path);
  }
  closedir(d);
}

int cmd_report(int argc, char **argv, struct fox_err *e) {
  struct report_args_ a;
  FOX_TRY(parse_(argc, argv, &a, e));
  struct stat st;
  if (stat(a.outdir, &st) != 0)
    return fox_errf(e, FOX_EDATA, "%s/study.h5: cannot open: %s: %s (expected the -o OUTDIR "
                                  "of foxopt run)", a.outdir, a.outdir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return fox_errf(e, FOX_EDATA, "%s: not a directory (expected the -o OUTDIR of foxopt run, "
                                  "holding study.h5)", a.outdir);
  fs_guard_inputs();
  fs_guard_study(a.outdir);
  if (a.csv) /* before a long --test; again once every input is open */
    FOX_TRY(fs_out_guard(a.csv, e));
  /* --test writes OUTDIR/test.h5: one writer at a time, and never beside a live run. */
  struct dirlock lock = {.fd = -1};
  if (a.test)
    FOX_TRY(dirlock_take(&lock, a.outdir, "foxopt report --test", e));
  sweep_(a.outdir, a.test);
  struct study s;
  int rc = study_load(&s, a.outdir, e);
  if (rc != 0) {
    dirlock_release(&lock);
    return rc;
  }
  /* the dataset the page and --test read is an input too: neither report.html nor --csv may be
   * it (read later, by html_write and the test) */
  if (s.cfg.study.function == 0 && s.cfg.data_path[0]) {
    struct fox_err ignore = {0};
    fs_input_check(s.cfg.data_path, "a dataset", FOX_EDATA, &ignore);
  }
  int *order = malloc((size_t)(s.n ? s.n : 1) * sizeof *order);
  rc = order ? 0 : fox_errf(e, FOX_EFAIL, "out of memory");
  if (rc == 0)
    report_rank(&s, order);
  /* The selection figures, for an agent study. */
  struct return_matrix m = {0};
  struct overfit o;
  int have_fig = 0;
  memset(&o, 0, sizeof o);
  if (rc == 0 && s.cfg.study.function == 0) {
    rc = returns_load(&s, a.outdir, &m, e);
    if (rc == 0 && (rc = overfit_compute(&s, &m, a.blocks, &o, e)) == 0)
      have_fig = 1;
  }
  struct test_record rec = {0};
  struct test_row *rows = NULL;
  int k = 0;
  if (rc == 0)
    rc = test_record_read(a.outdir, s.n, &rec, e);
  if (rc == 0 && a.test)
    rc = test_(&s, &a, order, &rows, &k, &rec, e);
  FILE *out = a.json ? stderr : stdout; /* --json keeps stdout to the one object */
  if (rc == 0 && a.json) {
    rc = json_report_(&s, order, a.top, have_fig ? &o : NULL, &rec, rows, k, a.test, e);
  } else if (rc == 0) {
    report_print_table(stdout, &s, order, a.top);
    pbt_report_print(stdout, &s);
    rc = report_print_importance(stdout, &s, e);
    if (have_fig)
      overfit_print(stdout, &s, &o);
    if (s.cfg.eval_split == FOX_SPLIT_TEST && s.cfg.study.function == 0)
      printf("# note: eval.split is test: this study chose its configurations on the test "
             "split, so no untouched test remains\n");
    if (a.test)
      print_test_(stdout, &s, rows, k, &rec);
    else if (rec.looks > 0)
      printf("# note: the test split of this study has been looked at %d time%s (first %s, "
             "last %s; %d configuration%s): its figures are no longer an untouched estimate\n",
             rec.looks, rec.looks > 1 ? "s" : "", rec.first, rec.last, rec.n_seen,
             rec.n_seen > 1 ? "s" : "");
  }
  if (rc == 0 && a.csv && (rc = fs_out_guard(a.csv, e)) == 0) {
    fflush(stdout); /* the table first, where --csv is /dev/stdout */
    rc = study_save_csv(&s, order, s.n, a.csv, e);
    FILE *note = fs_note_stream(a.csv) == stderr ? stderr : out; /* none inside the CSV */
    if (rc == 0)
      fprintf(note, "wrote %s (%d trials, best first)\n", a.csv, s.n);
  }
  struct figure_out files = {a.outdir, 1, out};
  struct html_page page = {&s, order, a.top, a.outdir, have_fig ? &o : NULL, &rec,
                           a.plots ? &files : NULL};
  if (rc == 0 && a.html) {
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", a.outdir);
    fflush(stdout);
    /* report.html a link to study.h5 would have the page written over the study */
    rc = fs_out_guard(path, e);
    if (rc == 0)
      rc = html_write(&page, path, stderr, e);
    if (rc == 0)
      fprintf(out, "wrote %s\n", path);
  } else if (rc == 0 && a.plots) { /* the page's figures, as files alone */
    fflush(stdout);
    rc = html_figures(&page, stderr, e);
  }
  free(rows);
  test_record_free(&rec);
  if (have_fig)
    overfit_free(&o);
  returns_free(&m);
  free(order);
  study_free(&s);
  dirlock_release(&lock);
  return rc;
}
