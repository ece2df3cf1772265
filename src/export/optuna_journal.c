/* foxopt's study table as the operations of Optuna 5's JournalStorage
 * (optuna/storages/journal/_storage.py): CREATE_STUDY and the study's attributes, then one
 * CREATE_TRIAL per trial carrying its whole record, as Study.add_trial writes it. */
#include "export/optuna_journal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report/curves.h"
#include "study/rankfile.h"
#include "util/fsutil.h"
#include "util/h5io.h"
#include "util/json.h"

/* JournalOperation, TrialState and StudyDirection as Optuna 5 numbers them. */
enum { OP_CREATE_STUDY_ = 0, OP_STUDY_USER_ATTR_ = 2, OP_STUDY_SYSTEM_ATTR_ = 3,
       OP_CREATE_TRIAL_ = 4 };
enum { OPTUNA_RUNNING_ = 0, OPTUNA_COMPLETE_ = 1, OPTUNA_PRUNED_ = 2, OPTUNA_FAIL_ = 3 };
enum { OPTUNA_MINIMIZE_ = 1, OPTUNA_MAXIMIZE_ = 2 };
/* Optuna's own workers are "UUID-THREAD": a log line is never taken for the reader's. */
#define WORKER_ "foxopt-export"
/* optuna-dashboard keeps a note in study system attributes of at most this many characters. */
#define NOTE_CHUNK_ 2045

/* Every line's dump: compact, as Optuna's JournalFileBackend writes its own, ASCII only (as
 * Python's json.dumps), keys in the order set, every double to 17 digits (which reads back to
 * the same double). */
#define LINE_FLAGS_ \
  (JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* null for NaN (a value foxopt does not have), the number otherwise (infinities as Python's). */
static json_t *pynum_null_(double v) { return isnan(v) ? json_null() : fox_json_pynum(v); }

/* "+12", "-3", "64": text that Python would read as an int. */
static int int_text_(const char *c) {
  if (*c == '+' || *c == '-')
    c++;
  if (!*c)
    return 0;
  for (; *c; c++)
    if (*c < '0' || *c > '9')
      return 0;
  return 1;
}

/* Choice j as a JSON scalar: a number where its text is one (an int where written as one),
 * true or false, else the text itself (lists such as "[64, 64]" among them). */
static json_t *choice_json_(const struct space_param *p, int j) {
  const char *c = p->choice[j];
  double v = p->choice_num[j];
  if (strcmp(c, "true") == 0 || strcmp(c, "false") == 0)
    return json_boolean(c[0] == 't');
  if (isfinite(v) && int_text_(c) && fabs(v) < 9007199254740992.0)
    return json_integer((json_int_t)v);
  if (isfinite(v))
    return fox_json_pynum(v);
  return fox_json_str(c);
}

/* Optuna's distribution_to_json of the parameter's distribution: json.dumps (default
 * separators) of its class name and __dict__, in the order Optuna's constructors set it; NULL
 * with e set when memory runs out. */
static char *dist_json_(const struct space_param *p, struct fox_err *e) {
  json_t *d = json_object(), *a = json_object();
  if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
    fox_json_set(d, "name", json_string("CategoricalDistribution"), e);
    json_t *choices = json_array();
    for (int j = 0; j < p->n_choices; j++)
      fox_json_push(choices, choice_json_(p, j), e);
    fox_json_set(a, "choices", choices, e);
  } else {
    double low, high, step;
    int lg;
    space_numeric(p, &low, &high, &step, &lg);
    if (p->integer) {
      fox_json_set(d, "name", json_string("IntDistribution"), e);
      fox_json_set(a, "log", json_boolean(lg), e);
      fox_json_set(a, "step", json_integer((json_int_t)step), e);
      fox_json_set(a, "low", json_integer((json_int_t)low), e);
      fox_json_set(a, "high", json_integer((json_int_t)high), e);
    } else {
      fox_json_set(d, "name", json_string("FloatDistribution"), e);
      fox_json_set(a, "step", step > 0 ? fox_json_pynum(step) : json_null(), e);
      fox_json_set(a, "low", fox_json_pynum(low), e);
      fox_json_set(a, "high", fox_json_pynum(high), e);
      fox_json_set(a, "log", json_boolean(lg), e);
    }
  }
  fox_json_set(d, "attributes", a, e);
  char *text = e->code ? NULL
                       : fox_json_dumps(d, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17),
                                        "an Optuna distribution", e);
  json_decref(d);
  return text;
}

/* Microseconds since the epoch as Python's datetime.isoformat(timespec="microseconds") of a
 * UTC datetime: "2025-01-02T03:04:05.123456+00:00". */
static void iso_(long long us, char *out, size_t n) {
  long long sec = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
  time_t t = (time_t)sec;
  struct tm tm;
  size_t k = gmtime_r(&t, &tm) ? strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm) : 0;
  snprintf(out + k, n - k, ".%06lld+00:00", us - sec * 1000000);
}

/* Optuna's state of each trial: foxopt's, except that a complete trial whose objective is NaN
 * is failed (Optuna's tell does the same: no complete trial without a value), and a pbt
 * segment before the last generation is pruned: its member went on in the next generation, so
 * that Optuna's best trial is foxopt's, the population's result (`last` is
 * study_last_generation). */
static int state_(const struct study *s, const struct study_trial *t, int last) {
  switch (t->status) {
  case FOX_ST_COMPLETE:
    if (t->generation >= 0 && t->generation < last)
      return OPTUNA_PRUNED_;
    for (int k = 0; k < s->n_obj; k++)
      if (isnan(t->metrics[s->obj_metric[k]]))
        return OPTUNA_FAIL_;
    return OPTUNA_COMPLETE_;
  case FOX_ST_PRUNED: return OPTUNA_PRUNED_;
  case FOX_ST_FAILED: return OPTUNA_FAIL_;
  default: return OPTUNA_RUNNING_;
  }
}

/* An operation's object, its op_code and worker first. */
static json_t *op_(int op, struct fox_err *e) {
  json_t *o = json_object();
  fox_json_set(o, "op_code", json_integer(op), e);
  fox_json_set(o, "worker_id", json_string(WORKER_), e);
  return o;
}

/* SET_STUDY_USER_ATTR / SET_STUDY_SYSTEM_ATTR of one key, taking v, as one line of f. */
static int attr_(FILE *f, int op, const char *key, json_t *v, struct fox_err *e) {
  json_t *o = op_(op, e), *a = json_object();
  fox_json_set(o, "study_id", json_integer(0), e);
  fox_json_set(a, key, v, e);
  fox_json_set(o, op == OP_STUDY_USER_ATTR_ ? "user_attr" : "system_attr", a, e);
  return fox_json_print(f, o, LINE_FLAGS_, "the Optuna journal", e);
}

/* How the intermediate values of this study come about, for the note and the attribute. */
static const char *curve_policy_(const struct study *s) {
  if (s->n_obj != 1)
    return "none: a multi-objective study (Optuna reports one value per step)";
  if (s->cfg.study.function)
    return "the test function's value at every rung each trial reached (step = epochs)";
  if (report_curves_aggregate(s))
    return s->repeats > 1
               ? "every epoch (step = epoch): the mean of the repeats' per-epoch curves (each "
                 "the mean over the folds) from the trial files, the study's aggregate at the "
                 "last rung"
               : "every epoch (step = epoch) from the trial file's curve (the mean over the "
                 "folds), the study's value at the last rung";
  return "the study's aggregate at each trial's last rung only: the trial files' curves hold "
         "each repeat's mean over the folds per epoch, not the cells this aggregate needs";
}

/* The study's version as study.h5 records it ("" when it does not). */
static void study_version_(const char *h5, char *out, size_t n) {
  struct fox_err e = {0};
  hid_t f;
  out[0] = '\0';
  if (h5io_open_read(h5, "study.h5", &f, &e) != 0)
    return;
  if (H5Aexists(f, "foxopt_version") > 0 &&
      h5io_attr_read_str(f, "foxopt_version", out, n, h5, &e) != 0)
    out[0] = '\0';
  H5Fclose(f);
}

/* The study note optuna-dashboard shows on the study's page (Markdown). */
static char *note_(const struct study *s, const char *outdir, const char *version,
                   const int *count, const char *anchor) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m)
    return NULL;
  fprintf(m, "**foxopt study `%s`**, exported by `foxopt export` (foxopt %s) from `%s`",
          s->cfg.study.name, FOXOPT_VERSION, outdir);
  if (version[0])
    fprintf(m, ", written by foxopt %s", version);
  fprintf(m, ".\n\n- Objective%s:", s->n_obj > 1 ? "s" : "");
  for (int k = 0; k < s->n_obj; k++)
    fprintf(m, "%s %s (%s)", k ? "," : "", s->metric_names[s->obj_metric[k]],
            s->obj_dir[k] == FOX_MAXIMIZE ? "maximize" : "minimize");
  if (s->repeats * s->folds > 1)
    fprintf(m, ", the %s over %d repeats x %d folds", config_aggregate_names[s->cfg.study.aggregate],
            s->repeats, s->folds);
  fprintf(m, "\n- Trials: %d of %d (%d complete, %d pruned, %d failed, %d running)%s\n", s->n,
          s->total, count[OPTUNA_COMPLETE_], count[OPTUNA_PRUNED_], count[OPTUNA_FAIL_],
          count[OPTUNA_RUNNING_], study_finished(s) ? ", finished" : ", not finished");
  fprintf(m, "- Intermediate values: %s\n", curve_policy_(s));
  fprintf(m, "- Times: each trial starts when its first segment started and completes when "
             "its last one ended (UTC, trials.csv's start and end; a trial resumed in a later "
             "run spans the pause). A trial without recorded times (a study.h5 from before "
             "foxopt recorded them) ends at study.h5's last write (%s) and starts its seconds "
             "earlier.\n", anchor);
  fprintf(m, "- foxopt's id, status, round, rung, epochs, seed, reason and every metric are "
             "each trial's user attributes (`foxopt.*`); the config is the study's.\n");
  if (fclose(m) != 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* The note in optuna-dashboard's form: dashboard:note_ver, then dashboard:note_str:K chunks of
 * at most NOTE_CHUNK_ characters (code points, as Python counts them). */
static int note_attrs_(FILE *f, const char *note, struct fox_err *e) {
  FOX_TRY(attr_(f, OP_STUDY_SYSTEM_ATTR_, "dashboard:note_ver", json_integer(1), e));
  const unsigned char *p = (const unsigned char *)note;
  for (int k = 0; *p; k++) {
    const unsigned char *q = p;
    unsigned cp;
    for (int c = 0; *q && c < NOTE_CHUNK_; c++)
      q += fox_utf8_next(q, &cp);
    char key[64], *chunk = strndup((const char *)p, (size_t)(q - p));
    mallocCheck(chunk, e);
    snprintf(key, sizeof key, "dashboard:note_str:%d", k);
    int rc = attr_(f, OP_STUDY_SYSTEM_ATTR_, key, fox_json_str(chunk), e);
    free(chunk);
    FOX_TRY(rc);
    p = q;
  }
  return 0;
}

/* The objectives' metric names as a JSON list. */
static json_t *objective_names_(const struct study *s, struct fox_err *e) {
  json_t *a = json_array();
  for (int k = 0; k < s->n_obj; k++)
    fox_json_push(a, fox_json_str(s->metric_names[s->obj_metric[k]]), e);
  return a;
}

static int study_ops_(FILE *f, const struct study *s, const char *outdir, const char *h5,
                      const int *count, long long anchor_us, struct fox_err *e) {
  const struct study_config *sc = &s->cfg.study;
  json_t *o = op_(OP_CREATE_STUDY_, e), *dirs = json_array();
  fox_json_set(o, "study_name", fox_json_str(sc->name), e);
  for (int k = 0; k < s->n_obj; k++)
    fox_json_push(dirs, json_integer(s->obj_dir[k] == FOX_MAXIMIZE ? OPTUNA_MAXIMIZE_
                                                                   : OPTUNA_MINIMIZE_), e);
  fox_json_set(o, "directions", dirs, e);
  FOX_TRY(fox_json_print(f, o, LINE_FLAGS_, "the Optuna journal", e));

  const int U = OP_STUDY_USER_ATTR_;
  char version[64], anchor[48];
  study_version_(h5, version, sizeof version);
  iso_(anchor_us, anchor, sizeof anchor);
  FOX_TRY(attr_(f, U, "foxopt.version", fox_json_str(FOXOPT_VERSION), e));
  if (version[0])
    FOX_TRY(attr_(f, U, "foxopt.study_version", fox_json_str(version), e));
  FOX_TRY(attr_(f, U, "foxopt.outdir", fox_json_str(outdir), e));
  FOX_TRY(attr_(f, U, "foxopt.config", fox_json_str(s->config_text ? s->config_text : ""), e));
  if (s->config_sets && s->config_sets[0])
    FOX_TRY(attr_(f, U, "foxopt.config_sets", fox_json_str(s->config_sets), e));
  FOX_TRY(attr_(f, U, "foxopt.objectives", objective_names_(s, e), e));
  FOX_TRY(attr_(f, U, "foxopt.aggregate", fox_json_str(config_aggregate_names[sc->aggregate]), e));
  FOX_TRY(attr_(f, U, "foxopt.repeats", json_integer(s->repeats), e));
  FOX_TRY(attr_(f, U, "foxopt.folds", json_integer(s->folds), e));
  if (s->repeats > 1) { /* every configuration's repeat r trains with seed r (as text: 64 bits) */
    json_t *seeds = json_array();
    for (int r = 0; r < s->repeats; r++) {
      char seed[24];
      snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->rep_seed[r]);
      fox_json_push(seeds, json_string(seed), e);
    }
    FOX_TRY(attr_(f, U, "foxopt.repeat_seeds", seeds, e));
  }
  FOX_TRY(attr_(f, U, "foxopt.sampler", fox_json_str(config_sampler_names[sc->sampler]), e));
  FOX_TRY(attr_(f, U, "foxopt.scheduler", fox_json_str(config_scheduler_names[sc->scheduler]),
                e));
  json_t *rungs = json_array();
  for (int k = 0; k < s->plan.n; k++)
    fox_json_push(rungs, json_integer(s->plan.epochs[k]), e);
  FOX_TRY(attr_(f, U, "foxopt.rungs", rungs, e));
  FOX_TRY(attr_(f, U, "foxopt.trials_total", json_integer(s->total), e));
  FOX_TRY(attr_(f, U, "foxopt.finished", json_boolean(study_finished(s)), e));
  FOX_TRY(attr_(f, U, "foxopt.intermediate_values", fox_json_str(curve_policy_(s)), e));
  char times[256];
  snprintf(times, sizeof times, "datetime_start, datetime_complete = the trial's start and end "
                                "(trials.csv); without them study.h5's modification time (%s) "
                                "and that minus the trial's seconds", anchor);
  FOX_TRY(attr_(f, U, "foxopt.times", fox_json_str(times), e));

  /* Study.set_metric_names' attribute: the dashboard's axis titles. */
  FOX_TRY(attr_(f, OP_STUDY_SYSTEM_ATTR_, "study:metric_names", objective_names_(s, e), e));
  char *note = note_(s, outdir, version, count, anchor);
  if (!note)
    return fox_errf(e, FOX_EFAIL, "out of memory");
  int rc = note_attrs_(f, note, e);
  free(note);
  return rc;
}

/* The trial's user attributes: foxopt's bookkeeping and every metric; with several cells, the
 * spread of every metric and each objective's cells ([repeat][fold]). */
static json_t *user_attrs_(const struct study *s, const struct study_trial *t, int state,
                           struct fox_err *e) {
  json_t *u = json_object();
  char seed[24];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)t->seed);
  fox_json_set(u, "foxopt.id", json_integer(t->id), e);
  fox_json_set(u, "foxopt.status", fox_json_str(study_status_names[t->status]), e);
  fox_json_set(u, "foxopt.round", json_integer(t->round), e);
  fox_json_set(u, "foxopt.bracket", json_integer(t->bracket), e);
  fox_json_set(u, "foxopt.rung", json_integer(t->rung), e);
  fox_json_set(u, "foxopt.epochs", json_integer(t->epochs), e);
  fox_json_set(u, "foxopt.seed", json_string(seed), e);
  fox_json_set(u, "foxopt.rank", json_integer(t->rank), e);
  fox_json_set(u, "foxopt.seconds", pynum_null_(t->seconds), e);
  if (t->reason[0])
    fox_json_set(u, "foxopt.reason", fox_json_str(t->reason), e);
  if (t->member >= 0) {
    fox_json_set(u, "foxopt.member", json_integer(t->member), e);
    fox_json_set(u, "foxopt.generation", json_integer(t->generation), e);
    fox_json_set(u, "foxopt.parent", t->parent >= 0 ? json_integer(t->parent) : json_null(), e);
    fox_json_set(u, "foxopt.exploited", json_boolean(t->exploited), e);
    if (t->status == FOX_ST_COMPLETE && state == OPTUNA_PRUNED_)
      fox_json_set(u, "foxopt.note",
                   json_string("complete in foxopt: a pbt segment whose member went on in the "
                               "next generation (Optuna's best trial is the last generation's "
                               "best, as foxopt's)"), e);
  }
  if (t->status == FOX_ST_COMPLETE && state == OPTUNA_FAIL_)
    fox_json_set(u, "foxopt.note", json_string("complete in foxopt, but an objective is NaN: "
                                               "Optuna has no complete trial without a value"),
                 e);
  for (int m = 0; m < s->n_metrics; m++)
    if (!isnan(t->metrics[m]))
      fox_json_set(u, s->metric_names[m], fox_json_pynum(t->metrics[m]), e);
  if (s->repeats * s->folds > 1) {
    fox_json_set(u, "foxopt.repeats", json_integer(s->repeats), e);
    fox_json_set(u, "foxopt.folds", json_integer(s->folds), e);
    for (int m = 0; m < s->n_metrics; m++) {
      if (isnan(t->spread[m]))
        continue;
      char key[FOX_NAME_LEN + 8];
      snprintf(key, sizeof key, "%s.std", s->metric_names[m]);
      fox_json_set(u, key, fox_json_pynum(t->spread[m]), e);
    }
    for (int k = 0; k < s->n_obj; k++) {
      char key[FOX_NAME_LEN + 8];
      snprintf(key, sizeof key, "%s.cells", s->metric_names[s->obj_metric[k]]);
      json_t *cells = json_array();
      for (int r = 0; r < s->repeats; r++) {
        json_t *row = json_array();
        for (int fo = 0; fo < s->folds; fo++)
          fox_json_push(row, pynum_null_(study_cell(s, t, r, fo)[s->obj_metric[k]]), e);
        fox_json_push(cells, row, e);
      }
      fox_json_set(u, key, cells, e);
    }
    json_t *ep = json_array();
    for (int r = 0; r < s->repeats; r++)
      fox_json_push(ep, json_integer(t->rep[r].epochs), e);
    fox_json_set(u, "foxopt.repeat_epochs", ep, e);
  }
  return u;
}

static int trial_op_(FILE *f, const struct study *s, const char *outdir,
                     const struct study_trial *t, int state, char *const *dist,
                     long long anchor_us, int *steps, double *vals,
                     struct optuna_journal_stats *st, struct fox_err *e) {
  int n, from_curve;
  FOX_TRY(report_intermediate(s, outdir, t, steps, vals, &n, &from_curve, &st->missing_files,
                              e));
  st->curves += from_curve;
  double sec = isfinite(t->seconds) && t->seconds > 0 ? t->seconds : 0;
  char t0[48], t1[48];
  if (isfinite(t->start) && isfinite(t->end)) { /* when it ran, as trials.csv says */
    iso_(llround(t->start * 1e6), t0, sizeof t0);
    iso_(llround(t->end * 1e6), t1, sizeof t1);
  } else { /* a study.h5 from before foxopt recorded times, or a trial not run */
    iso_(anchor_us - llround(sec * 1e6), t0, sizeof t0);
    iso_(anchor_us, t1, sizeof t1);
  }
  json_t *o = op_(OP_CREATE_TRIAL_, e);
  fox_json_set(o, "study_id", json_integer(0), e);
  fox_json_set(o, "datetime_start", json_string(t0), e);
  fox_json_set(o, "state", json_integer(state), e);
  /* A single objective is `value`, several are `values` (Optuna's create_new_trial). A pruned
   * trial's value is its last intermediate one, as Optuna's tell gives it. */
  json_t *value = json_null(), *values = json_null();
  if (state == OPTUNA_COMPLETE_ && s->n_obj == 1) {
    value = fox_json_pynum(t->metrics[s->obj_metric[0]]);
  } else if (state == OPTUNA_COMPLETE_) {
    values = json_array();
    for (int k = 0; k < s->n_obj; k++)
      fox_json_push(values, fox_json_pynum(t->metrics[s->obj_metric[k]]), e);
  } else if (state == OPTUNA_PRUNED_ && n > 0 && !isnan(vals[n - 1])) {
    value = fox_json_pynum(vals[n - 1]);
  }
  fox_json_set(o, "value", value, e);
  fox_json_set(o, "values", values, e);
  if (state != OPTUNA_RUNNING_)
    fox_json_set(o, "datetime_complete", json_string(t1), e);
  /* Inactive (conditional) parameters are absent, as in Optuna's define-by-run trials. */
  json_t *dists = json_object(), *params = json_object();
  for (int i = 0; i < s->space.n; i++) {
    if (isnan(t->x[i]))
      continue;
    const struct space_param *p = &s->space.p[i];
    fox_json_set(dists, p->key, fox_json_str(dist[i]), e);
    int cat = p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED;
    /* to_internal_repr: a choice's index, a number as Optuna's float */
    fox_json_set(params, p->key, cat ? json_integer((int)t->x[i]) : fox_json_pynum(t->x[i]), e);
  }
  fox_json_set(o, "distributions", dists, e);
  fox_json_set(o, "params", params, e);
  fox_json_set(o, "user_attrs", user_attrs_(s, t, state, e), e);
  /* Constraints as Optuna's constraints_func stores them ("constraints": each <= 0 when met),
   * so that Optuna's best_trials and the dashboard leave infeasible trials off the front. */
  json_t *sys = json_object();
  if (s->n_con > 0 && t->status == FOX_ST_COMPLETE) {
    json_t *c = json_array();
    for (int k = 0; k < s->n_con; k++)
      fox_json_push(c, fox_json_pynum(study_constraint_value(s, t, k)), e);
    fox_json_set(sys, "constraints", c, e);
  }
  fox_json_set(o, "system_attrs", sys, e);
  json_t *iv = json_object();
  for (int k = 0; k < n; k++) {
    char step[16];
    snprintf(step, sizeof step, "%d", steps[k]);
    fox_json_set(iv, step, fox_json_pynum(vals[k]), e);
  }
  fox_json_set(o, "intermediate_values", iv, e);
  return fox_json_print(f, o, LINE_FLAGS_, "the Optuna journal", e);
}

int optuna_journal_write(const struct study *s, const char *outdir, const char *path,
                         struct optuna_journal_stats *st, struct fox_err *e) {
  memset(st, 0, sizeof *st);
  char h5[4200];
  snprintf(h5, sizeof h5, "%s/study.h5", outdir);
  struct stat sb;
  if (stat(h5, &sb) != 0)
    return fox_errf(e, FOX_EDATA, "%s: %s", h5, strerror(errno));
  long long anchor_us = (long long)sb.st_mtim.tv_sec * 1000000 + sb.st_mtim.tv_nsec / 1000;

  int *state = malloc((size_t)(s->n ? s->n : 1) * sizeof *state);
  int *steps = malloc((size_t)(s->plan_epochs + 2) * sizeof *steps);
  double *vals = malloc((size_t)(s->plan_epochs + 2) * sizeof *vals);
  char *dist[FOX_SPACE_MAX] = {0};
  int rc = state && steps && vals ? 0 : fox_errf(e, FOX_EFAIL, "out of memory");
  for (int i = 0; rc == 0 && i < s->space.n; i++)
    if (!(dist[i] = dist_json_(&s->space.p[i], e)))
      rc = e->code;
  int count[4] = {0}, last = study_last_generation(s);
  for (int i = 0; rc == 0 && i < s->n; i++) {
    state[i] = state_(s, &s->trials[i], last);
    count[state[i]]++;
    st->nan_objective += s->trials[i].status == FOX_ST_COMPLETE && state[i] == OPTUNA_FAIL_;
  }

  struct fs_out o;
  FILE *f = rc == 0 ? fs_out_fopen(&o, path, FS_OUT_TEXT, e) : NULL;
  if (rc == 0 && !f)
    rc = fs_out_end(&o, e->code, e);
  if (rc == 0)
    rc = study_ops_(f, s, outdir, h5, count, anchor_us, e);
  for (int i = 0; rc == 0 && i < s->n; i++)
    rc = trial_op_(f, s, outdir, &s->trials[i], state[i], dist, anchor_us, steps, vals, st, e);
  if (rc != 0 && f && ferror(f)) /* the lines name no file: the user's is */
    rc = fox_err_wrap(e, "%s", path);
  if (f)
    rc = fs_out_fclose(&o, f, rc, e);
  if (rc == 0) {
    st->trials = s->n;
    /* foxopt's states, as the journal holds them */
    st->by_state[FOX_ST_COMPLETE] = count[OPTUNA_COMPLETE_];
    st->by_state[FOX_ST_PRUNED] = count[OPTUNA_PRUNED_];
    st->by_state[FOX_ST_FAILED] = count[OPTUNA_FAIL_];
    st->by_state[FOX_ST_RUNNING] = count[OPTUNA_RUNNING_];
  }
  for (int i = 0; i < s->space.n; i++)
    free(dist[i]);
  free(state), free(steps), free(vals);
  return rc;
}
