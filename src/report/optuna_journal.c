/* foxopt's study table as the operations of Optuna 5's JournalStorage
 * (optuna/storages/journal/_storage.py): CREATE_STUDY and the study's attributes, then one
 * CREATE_TRIAL per trial carrying its whole record, as Study.add_trial writes it. */
#include "report/optuna_journal.h"

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

/* JournalOperation, TrialState and StudyDirection as Optuna 5 numbers them. */
enum { OP_CREATE_STUDY_ = 0, OP_STUDY_USER_ATTR_ = 2, OP_STUDY_SYSTEM_ATTR_ = 3,
       OP_CREATE_TRIAL_ = 4 };
enum { OPTUNA_RUNNING_ = 0, OPTUNA_COMPLETE_ = 1, OPTUNA_PRUNED_ = 2, OPTUNA_FAIL_ = 3 };
enum { OPTUNA_MINIMIZE_ = 1, OPTUNA_MAXIMIZE_ = 2 };
/* Optuna's own workers are "UUID-THREAD": a log line is never taken for the reader's. */
#define WORKER_ "foxopt-export"
/* optuna-dashboard keeps a note in study system attributes of at most this many characters. */
#define NOTE_CHUNK_ 2045


/* One code point of UTF-8 text: its length in bytes; a byte that starts no valid sequence
 * (overlong, surrogate, past U+10FFFF, cut short) is U+FFFD of length 1. */
static int utf8_next_(const unsigned char *p, unsigned *cp) {
  unsigned c = p[0], min;
  int n;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, *cp = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, *cp = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, *cp = c & 0x07, min = 0x10000;
  else
    n = 0, min = 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) {
      n = 0;
      break;
    }
    *cp = (*cp << 6) | (p[i] & 0x3F);
  }
  if (n == 0 || *cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) {
    *cp = 0xFFFD;
    return 1;
  }
  return n;
}

/* A JSON string as Python's json.dumps writes it (ensure_ascii): every code point past ASCII
 * as \uXXXX, above U+FFFF as a surrogate pair. */
static void jstr_(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  fputc('"', f);
  while (*p) {
    unsigned cp;
    p += utf8_next_(p, &cp);
    if (cp == '"' || cp == '\\')
      fprintf(f, "\\%c", (char)cp);
    else if (cp == '\n')
      fputs("\\n", f);
    else if (cp == '\r')
      fputs("\\r", f);
    else if (cp == '\t')
      fputs("\\t", f);
    else if (cp >= 0x20 && cp < 0x7F)
      fputc((int)cp, f);
    else if (cp < 0x10000)
      fprintf(f, "\\u%04x", cp);
    else
      fprintf(f, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + (cp & 0x3FF));
  }
  fputc('"', f);
}

/* A float as Python's json.dumps (repr) writes one: the shortest digits that read back to the
 * same double, positional from 1e-4 to below 1e16 with ".0" on integral values, else as
 * 1e-05 / 1.5e+16; NaN and infinities as Python's literals (which
 * Optuna's reader, json.loads, takes). */
static void jnum_(FILE *f, double v) {
  if (isnan(v)) {
    fputs("NaN", f);
    return;
  }
  if (isinf(v)) {
    fputs(v > 0 ? "Infinity" : "-Infinity", f);
    return;
  }
  char buf[48];
  int prec;
  for (prec = 1; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (strtod(buf, NULL) == v)
      break;
  }
  snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
  int exp10 = atoi(strchr(buf, 'e') + 1);
  if (exp10 >= -4 && exp10 < 16) /* repr's positional range */
    snprintf(buf, sizeof buf, "%.*f", prec - 1 - exp10 > 0 ? prec - 1 - exp10 : 0, v);
  fputs(buf, f);
  if (!strpbrk(buf, ".e"))
    fputs(".0", f);
}

/* null for NaN (a value foxopt does not have), the number otherwise. */
static void jnum_null_(FILE *f, double v) {
  if (isnan(v))
    fputs("null", f);
  else
    jnum_(f, v);
}

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
static void choice_json_(FILE *f, const struct space_param *p, int j) {
  const char *c = p->choice[j];
  double v = p->choice_num[j];
  if (strcmp(c, "true") == 0 || strcmp(c, "false") == 0)
    fputs(c, f);
  else if (isfinite(v) && int_text_(c) && fabs(v) < 9007199254740992.0)
    fprintf(f, "%.0f", v);
  else if (isfinite(v))
    jnum_(f, v);
  else
    jstr_(f, c);
}

/* Optuna's distribution_to_json of the parameter's distribution: json.dumps (default
 * separators) of its class name and __dict__, in the order Optuna's constructors set it. */
static void dist_json_(FILE *f, const struct space_param *p) {
  if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
    fputs("{\"name\": \"CategoricalDistribution\", \"attributes\": {\"choices\": [", f);
    for (int j = 0; j < p->n_choices; j++) {
      fputs(j ? ", " : "", f);
      choice_json_(f, p, j);
    }
    fputs("]}}", f);
    return;
  }
  double low, high, step;
  int lg;
  space_numeric(p, &low, &high, &step, &lg);
  if (p->integer) {
    fprintf(f, "{\"name\": \"IntDistribution\", \"attributes\": {\"log\": %s, \"step\": %.0f, "
               "\"low\": %.0f, \"high\": %.0f}}", lg ? "true" : "false", step, low, high);
    return;
  }
  fputs("{\"name\": \"FloatDistribution\", \"attributes\": {\"step\": ", f);
  if (step > 0)
    jnum_(f, step);
  else
    fputs("null", f);
  fputs(", \"low\": ", f);
  jnum_(f, low);
  fputs(", \"high\": ", f);
  jnum_(f, high);
  fprintf(f, ", \"log\": %s}}", lg ? "true" : "false");
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

static void op_head_(FILE *f, int op) {
  fprintf(f, "{\"op_code\":%d,\"worker_id\":\"%s\",", op, WORKER_);
}

/* SET_STUDY_USER_ATTR / SET_STUDY_SYSTEM_ATTR of one key; the caller writes the value and
 * closes with attr_end_. */
static void attr_begin_(FILE *f, int op, const char *key) {
  op_head_(f, op);
  fprintf(f, "\"study_id\":0,\"%s\":{", op == OP_STUDY_USER_ATTR_ ? "user_attr" : "system_attr");
  jstr_(f, key);
  fputc(':', f);
}

static void attr_end_(FILE *f) { fputs("}}\n", f); }

static void attr_str_(FILE *f, int op, const char *key, const char *v) {
  attr_begin_(f, op, key);
  jstr_(f, v);
  attr_end_(f);
}

static void attr_int_(FILE *f, int op, const char *key, long long v) {
  attr_begin_(f, op, key);
  fprintf(f, "%lld", v);
  attr_end_(f);
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
  fprintf(m, "- Times: foxopt records each trial's seconds, not its clock times. Every trial "
             "ends at study.h5's last write (%s) and starts that many seconds earlier: "
             "durations are foxopt's, the clock times are not when the trials ran.\n", anchor);
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
static void note_attrs_(FILE *f, const char *note) {
  attr_int_(f, OP_STUDY_SYSTEM_ATTR_, "dashboard:note_ver", 1);
  const unsigned char *p = (const unsigned char *)note;
  for (int k = 0; *p; k++) {
    const unsigned char *q = p;
    unsigned cp;
    for (int c = 0; *q && c < NOTE_CHUNK_; c++)
      q += utf8_next_(q, &cp);
    char key[64], *chunk = strndup((const char *)p, (size_t)(q - p));
    snprintf(key, sizeof key, "dashboard:note_str:%d", k);
    if (chunk)
      attr_str_(f, OP_STUDY_SYSTEM_ATTR_, key, chunk);
    free(chunk);
    p = q;
  }
}

/* The objectives' metric names as a JSON list. */
static void objective_names_(FILE *f, const struct study *s) {
  for (int k = 0; k < s->n_obj; k++) {
    fputs(k ? "," : "[", f);
    jstr_(f, s->metric_names[s->obj_metric[k]]);
  }
  fputc(']', f);
}

static int study_ops_(FILE *f, const struct study *s, const char *outdir, const char *h5,
                      const int *count, long long anchor_us, struct fox_err *e) {
  const struct study_config *sc = &s->cfg.study;
  op_head_(f, OP_CREATE_STUDY_);
  fputs("\"study_name\":", f);
  jstr_(f, sc->name);
  fputs(",\"directions\":[", f);
  for (int k = 0; k < s->n_obj; k++)
    fprintf(f, "%s%d", k ? "," : "", s->obj_dir[k] == FOX_MAXIMIZE ? OPTUNA_MAXIMIZE_
                                                                     : OPTUNA_MINIMIZE_);
  fputs("]}\n", f);

  const int U = OP_STUDY_USER_ATTR_;
  char version[64], anchor[48];
  study_version_(h5, version, sizeof version);
  iso_(anchor_us, anchor, sizeof anchor);
  attr_str_(f, U, "foxopt.version", FOXOPT_VERSION);
  if (version[0])
    attr_str_(f, U, "foxopt.study_version", version);
  attr_str_(f, U, "foxopt.outdir", outdir);
  attr_str_(f, U, "foxopt.config", s->config_text ? s->config_text : "");
  if (s->config_sets && s->config_sets[0])
    attr_str_(f, U, "foxopt.config_sets", s->config_sets);
  attr_begin_(f, U, "foxopt.objectives");
  objective_names_(f, s);
  attr_end_(f);
  attr_str_(f, U, "foxopt.aggregate", config_aggregate_names[sc->aggregate]);
  attr_int_(f, U, "foxopt.repeats", s->repeats);
  attr_int_(f, U, "foxopt.folds", s->folds);
  if (s->repeats > 1) { /* every configuration's repeat r trains with seed r (as text: 64 bits) */
    attr_begin_(f, U, "foxopt.repeat_seeds");
    for (int r = 0; r < s->repeats; r++)
      fprintf(f, "%s\"%llu\"", r ? "," : "[", (unsigned long long)s->rep_seed[r]);
    fputc(']', f);
    attr_end_(f);
  }
  attr_str_(f, U, "foxopt.sampler", config_sampler_names[sc->sampler]);
  attr_str_(f, U, "foxopt.scheduler", config_scheduler_names[sc->scheduler]);
  attr_begin_(f, U, "foxopt.rungs");
  for (int k = 0; k < s->plan.n; k++)
    fprintf(f, "%s%d", k ? "," : "[", s->plan.epochs[k]);
  fputc(']', f);
  attr_end_(f);
  attr_int_(f, U, "foxopt.trials_total", s->total);
  attr_begin_(f, U, "foxopt.finished");
  fputs(study_finished(s) ? "true" : "false", f);
  attr_end_(f);
  attr_str_(f, U, "foxopt.intermediate_values", curve_policy_(s));
  char times[256];
  snprintf(times, sizeof times, "datetime_complete = study.h5's modification time (%s); "
                                "datetime_start = that minus the trial's seconds", anchor);
  attr_str_(f, U, "foxopt.times", times);

  /* Study.set_metric_names' attribute: the dashboard's axis titles. */
  attr_begin_(f, OP_STUDY_SYSTEM_ATTR_, "study:metric_names");
  objective_names_(f, s);
  attr_end_(f);
  char *note = note_(s, outdir, version, count, anchor);
  if (!note)
    return fox_errf(e, FOX_EFAIL, "out of memory");
  note_attrs_(f, note);
  free(note);
  return 0;
}

/* The trial's user attributes: foxopt's bookkeeping and every metric; with several cells, the
 * spread of every metric and each objective's cells ([repeat][fold]). */
static void user_attrs_(FILE *f, const struct study *s, const struct study_trial *t, int state) {
  fprintf(f, "\"user_attrs\":{\"foxopt.id\":%d,\"foxopt.status\":", t->id);
  jstr_(f, study_status_names[t->status]);
  fprintf(f, ",\"foxopt.round\":%d,\"foxopt.bracket\":%d,\"foxopt.rung\":%d,\"foxopt.epochs\":%d,"
             "\"foxopt.seed\":\"%llu\",\"foxopt.rank\":%d,\"foxopt.seconds\":",
          t->round, t->bracket, t->rung, t->epochs, (unsigned long long)t->seed, t->rank);
  jnum_null_(f, t->seconds);
  if (t->reason[0]) {
    fputs(",\"foxopt.reason\":", f);
    jstr_(f, t->reason);
  }
  if (t->member >= 0) {
    fprintf(f, ",\"foxopt.member\":%d,\"foxopt.generation\":%d,\"foxopt.parent\":", t->member,
            t->generation);
    if (t->parent >= 0)
      fprintf(f, "%d", t->parent);
    else
      fputs("null", f);
    fprintf(f, ",\"foxopt.exploited\":%s", t->exploited ? "true" : "false");
    if (t->status == FOX_ST_COMPLETE && state == OPTUNA_PRUNED_)
      fputs(",\"foxopt.note\":\"complete in foxopt: a pbt segment whose member went on in the "
            "next generation (Optuna's best trial is the last generation's best, as foxopt's)\"",
            f);
  }
  if (t->status == FOX_ST_COMPLETE && state == OPTUNA_FAIL_)
    fputs(",\"foxopt.note\":\"complete in foxopt, but an objective is NaN: Optuna has no "
          "complete trial without a value\"", f);
  for (int m = 0; m < s->n_metrics; m++) {
    if (isnan(t->metrics[m]))
      continue;
    fputc(',', f);
    jstr_(f, s->metric_names[m]);
    fputc(':', f);
    jnum_(f, t->metrics[m]);
  }
  if (s->repeats * s->folds > 1) {
    fprintf(f, ",\"foxopt.repeats\":%d,\"foxopt.folds\":%d", s->repeats, s->folds);
    for (int m = 0; m < s->n_metrics; m++) {
      if (isnan(t->spread[m]))
        continue;
      char key[FOX_NAME_LEN + 8];
      snprintf(key, sizeof key, "%s.std", s->metric_names[m]);
      fputc(',', f);
      jstr_(f, key);
      fputc(':', f);
      jnum_(f, t->spread[m]);
    }
    for (int k = 0; k < s->n_obj; k++) {
      char key[FOX_NAME_LEN + 8];
      snprintf(key, sizeof key, "%s.cells", s->metric_names[s->obj_metric[k]]);
      fputc(',', f);
      jstr_(f, key);
      fputs(":[", f);
      for (int r = 0; r < s->repeats; r++) {
        fputs(r ? ",[" : "[", f);
        for (int fo = 0; fo < s->folds; fo++) {
          fputs(fo ? "," : "", f);
          jnum_null_(f, study_cell(s, t, r, fo)[s->obj_metric[k]]);
        }
        fputc(']', f);
      }
      fputc(']', f);
    }
    fputs(",\"foxopt.repeat_epochs\":", f);
    for (int r = 0; r < s->repeats; r++)
      fprintf(f, "%s%d", r ? "," : "[", t->rep[r].epochs);
    fputc(']', f);
  }
  fputc('}', f);
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
  iso_(anchor_us - llround(sec * 1e6), t0, sizeof t0);
  iso_(anchor_us, t1, sizeof t1);
  op_head_(f, OP_CREATE_TRIAL_);
  fprintf(f, "\"study_id\":0,\"datetime_start\":\"%s\",\"state\":%d,", t0, state);
  /* A single objective is `value`, several are `values` (Optuna's create_new_trial). A pruned
   * trial's value is its last intermediate one, as Optuna's tell gives it. */
  if (state == OPTUNA_COMPLETE_ && s->n_obj == 1) {
    fputs("\"value\":", f);
    jnum_(f, t->metrics[s->obj_metric[0]]);
    fputs(",\"values\":null,", f);
  } else if (state == OPTUNA_COMPLETE_) {
    fputs("\"value\":null,\"values\":[", f);
    for (int k = 0; k < s->n_obj; k++) {
      fputs(k ? "," : "", f);
      jnum_(f, t->metrics[s->obj_metric[k]]);
    }
    fputs("],", f);
  } else if (state == OPTUNA_PRUNED_ && n > 0 && !isnan(vals[n - 1])) {
    fputs("\"value\":", f);
    jnum_(f, vals[n - 1]);
    fputs(",\"values\":null,", f);
  } else {
    fputs("\"value\":null,\"values\":null,", f);
  }
  if (state != OPTUNA_RUNNING_)
    fprintf(f, "\"datetime_complete\":\"%s\",", t1);
  /* Inactive (conditional) parameters are absent, as in Optuna's define-by-run trials. */
  fputs("\"distributions\":{", f);
  for (int i = 0, c = 0; i < s->space.n; i++) {
    if (isnan(t->x[i]))
      continue;
    fputs(c++ ? "," : "", f);
    jstr_(f, s->space.p[i].key);
    fputc(':', f);
    jstr_(f, dist[i]);
  }
  fputs("},\"params\":{", f);
  for (int i = 0, c = 0; i < s->space.n; i++) {
    if (isnan(t->x[i]))
      continue;
    fputs(c++ ? "," : "", f);
    jstr_(f, s->space.p[i].key);
    fputc(':', f);
    int cat = s->space.p[i].dist == FOX_DIST_CATEGORICAL || s->space.p[i].dist == FOX_DIST_FIXED;
    if (cat) /* to_internal_repr: the index of the choice */
      fprintf(f, "%d", (int)t->x[i]);
    else
      jnum_(f, t->x[i]);
  }
  fputs("},", f);
  user_attrs_(f, s, t, state);
  /* Constraints as Optuna's constraints_func stores them ("constraints": each <= 0 when met),
   * so that Optuna's best_trials and the dashboard leave infeasible trials off the front. */
  fputs(",\"system_attrs\":{", f);
  if (s->n_con > 0 && t->status == FOX_ST_COMPLETE) {
    fputs("\"constraints\":[", f);
    for (int c = 0; c < s->n_con; c++) {
      fputs(c ? "," : "", f);
      jnum_(f, study_constraint_value(s, t, c));
    }
    fputc(']', f);
  }
  fputs("},\"intermediate_values\":{", f);
  for (int k = 0; k < n; k++) {
    fprintf(f, "%s\"%d\":", k ? "," : "", steps[k]);
    jnum_(f, vals[k]);
  }
  fputs("}}\n", f);
  return 0;
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
  for (int i = 0; rc == 0 && i < s->space.n; i++) {
    size_t len;
    FILE *m = open_memstream(&dist[i], &len);
    if (m) {
      dist_json_(m, &s->space.p[i]);
      if (fclose(m) != 0)
        dist[i] = NULL;
    }
    if (!m || !dist[i])
      rc = fox_errf(e, FOX_EFAIL, "out of memory");
  }
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
