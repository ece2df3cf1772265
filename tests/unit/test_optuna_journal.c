/* The Optuna journal of a hand-made two-objective study (what `foxopt run` cannot make yet):
 * directions, values lists, a NaN objective turned failed, pruned and running trials, number
 * and string forms as jansson writes them (floats to 17 digits with a point or an exponent,
 * text as ASCII with uppercase hex escapes; Python's json.loads reads them back), and the refusal of
 * an unwritable file.
 * With an argument the journal is left at that path (tests/e2e/export_optuna.sh loads it
 * with Optuna). */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fox_check.h"
#include "export/optuna_journal.h"
#include "study/study_h5.h"

/* Odd names: JSON's own quotes and backslashes, and UTF-8 (export_optuna.sh expects them). */
#define COST_ "co\"st\\\xc3\xbc" /* co, quote, st, backslash, U+00FC */
#define X1_ "x\"1\\\xc3\xa9"     /* x, quote, 1, backslash, U+00E9 */
#define COST_JSON_ "\"co\\\"st\\\\\\u00FC\""
#define X1_JSON_ "\"x\\\"1\\\\\\u00E9\""

static const char cfg_[] =
    "study: {name: mo, seed: 1, trials: 6, round_size: 6, sampler: random,\n"
    "        objective: {function: branin, direction: minimize}}\n"
    "parameters:\n"
    "  x0: {distribution: uniform, min: -5, max: 10}\n"
    "  x1: {values: [0, 2.5, 1e-4, 15]}\n";

/* Line `k` (0-based) of the file, or NULL. */
static char *line_(const char *path, int k) {
  FILE *f = fopen(path, "r");
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len = -1;
  for (int i = 0; f && i <= k; i++)
    if ((len = getline(&buf, &cap, f)) < 0)
      break;
  if (f)
    fclose(f);
  if (len < 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static int lines_(const char *path) {
  FILE *f = fopen(path, "r");
  int n = 0, c;
  while (f && (c = fgetc(f)) != EOF)
    n += c == '\n';
  if (f)
    fclose(f);
  return n;
}

static void has_(const char *line, const char *want, const char *what) {
  CHECK(line && strstr(line, want), "%s: '%s' not in %s", what, want, line ? line : "(none)");
}

int main(int argc, char **argv) {
  char dir[] = "/tmp/test_optuna_journal.XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  char path[512];
  if (argc > 1)
    snprintf(path, sizeof path, "%s", argv[1]);
  else
    snprintf(path, sizeof path, "%s/mo.log", dir);

  struct study s;
  struct fox_err e = {0};
  int rc = study_create_text(&s, cfg_, NULL, "mo.yaml", &e);
  CHECK(rc == 0, "%s", e.msg);
  if (rc != 0)
    return fox_check_done("test_optuna_journal");
  /* A second metric and objective, maximised, and a third metric; a study name with an umlaut,
   * a fox (U+1F98A, a surrogate pair in JSON) and a byte that is not UTF-8 (U+FFFD); a metric
   * and a parameter named with quotes, backslashes and UTF-8. */
  s.n_metrics = 3;
  snprintf(s.metric_names[1], sizeof s.metric_names[1], "%s", COST_);
  snprintf(s.metric_names[2], sizeof s.metric_names[2], "pf"); /* infinite in trials 0 and 1 */
  snprintf(s.space.p[1].key, sizeof s.space.p[1].key, "%s", X1_);
  s.n_obj = 2;
  s.obj_metric[0] = 0, s.obj_dir[0] = FOX_MINIMIZE;
  s.obj_metric[1] = 1, s.obj_dir[1] = FOX_MAXIMIZE;
  snprintf(s.cfg.study.name, sizeof s.cfg.study.name, "f\xc3\xbc" "chse \xf0\x9f\xa6\x8a \xff");
  static const int status[6] = {FOX_ST_COMPLETE, FOX_ST_COMPLETE, FOX_ST_COMPLETE, FOX_ST_PRUNED,
                                FOX_ST_RUNNING, FOX_ST_FAILED};
  static const double v[6][2] = {{1e-05, 123456789.0}, {0.0001, 1e16}, {0.1 + 0.2, NAN},
                                 {2.0, -0.0}, {NAN, NAN}, {NAN, NAN}};
  s.trials = calloc(6, sizeof *s.trials);
  s.cap = s.n = s.trials ? 6 : 0;
  for (int i = 0; i < s.n; i++) {
    struct study_trial *t = &s.trials[i];
    CHECK(study_trial_alloc(&s, t, &e) == 0, "%s", e.msg);
    t->id = i;
    t->status = status[i];
    t->rung = status[i] == FOX_ST_COMPLETE || status[i] == FOX_ST_PRUNED ? 0 : -1;
    t->epochs = t->rung == 0 ? s.plan.epochs[0] : 0;
    t->seed = 18446744073709551615ULL - (uint64_t)i; /* 64 bits: text, not a JSON number */
    t->seconds = 1.5;
    for (int m = 0; m < FOX_STUDY_METRICS; m++)
      t->metrics[m] = t->spread[m] = NAN;
    t->metrics[0] = v[i][0], t->metrics[1] = v[i][1];
    t->metrics[2] = i == 0 ? INFINITY : i == 1 ? -INFINITY : NAN;
    t->x[0] = -5 + i;
    t->x[1] = i % 4;
    for (int r = 0; r < s.repeats; r++)
      for (int f = 0; f < s.folds; f++)
        memcpy(study_cell(&s, t, r, f), t->metrics, 3 * sizeof(double));
  }
  snprintf(s.trials[5].reason, sizeof s.trials[5].reason, "diverged \"quote\" \\ back\nslash");
  CHECK(study_save(&s, dir, &e) == 0, "study_save: %s", e.msg);

  struct optuna_journal_stats st;
  rc = optuna_journal_write(&s, dir, path, &st, &e);
  CHECK(rc == 0, "write: %s", e.msg);
  CHECK(st.trials == 6 && st.by_state[FOX_ST_COMPLETE] == 2 && st.by_state[FOX_ST_PRUNED] == 1 &&
            st.by_state[FOX_ST_FAILED] == 2 && st.by_state[FOX_ST_RUNNING] == 1 &&
            st.nan_objective == 1,
        "stats: %d trials, %d complete %d pruned %d failed %d running, %d NaN", st.trials,
        st.by_state[0], st.by_state[1], st.by_state[2], st.by_state[3], st.nan_objective);

  char *l = line_(path, 0);
  CHECK(l && strcmp(l, "{\"op_code\":0,\"worker_id\":\"foxopt-export\",\"study_name\":"
                       "\"f\\u00FCchse \\uD83E\\uDD8A \\uFFFD\",\"directions\":[1,2]}\n") == 0,
        "CREATE_STUDY line: %s", l ? l : "(none)");
  free(l);
  int n = lines_(path), first = -1;
  for (int k = 0; k < n && first < 0; k++) {
    l = line_(path, k);
    if (l && strncmp(l, "{\"op_code\":4,", 13) == 0)
      first = k;
    if (l && strstr(l, "\"study:metric_names\""))
      has_(l, "{\"study:metric_names\":[\"value\"," COST_JSON_ "]}", "metric names");
    free(l);
  }
  CHECK(first > 0 && n - first == 6, "%d lines, trials from line %d: expected 6 CREATE_TRIAL", n,
        first);
  static const char *const want[6][4] = {
      {"\"state\":1,\"value\":null,\"values\":[1.0000000000000001e-5,123456789.0],",
       COST_JSON_ ":123456789.0,\"pf\":Infinity}", "\"params\":{\"x0\":-5.0," X1_JSON_ ":0}"},
      {"\"state\":1,\"value\":null,\"values\":[0.0001,10000000000000000.0],",
       "\"foxopt.seed\":\"18446744073709551614\"", "\"params\":{\"x0\":-4.0," X1_JSON_ ":1}",
       "\"pf\":-Infinity}"},
      {"\"state\":3,\"value\":null,\"values\":null,",
       "\"foxopt.note\":\"complete in foxopt, but an objective is NaN",
       "\"value\":0.30000000000000004"},
      {"\"state\":2,\"value\":null,\"values\":null,", "\"intermediate_values\":{}}",
       COST_JSON_ ":-0.0"},
      {"\"state\":0,\"value\":null,\"values\":null,\"distributions\"", "\"foxopt.rung\":-1",
       "\"params\":{\"x0\":-1.0," X1_JSON_ ":0}"},
      {"\"state\":3,", "\"foxopt.reason\":\"diverged \\\"quote\\\" \\\\ back\\nslash\"",
       "\"datetime_complete\":\""},
  };
  for (int i = 0; first > 0 && i < 6; i++) {
    l = line_(path, first + i);
    char what[32];
    snprintf(what, sizeof what, "trial %d", i);
    for (int j = 0; j < 4; j++)
      if (want[i][j])
        has_(l, want[i][j], what);
    /* Optuna's distribution_to_json: json.dumps with its default separators, as a string */
    has_(l, X1_JSON_ ":\"{\\\"name\\\": \\\"CategoricalDistribution\\\", \\\"attributes\\\": "
            "{\\\"choices\\\": [0, 2.5, 0.0001, 15]}}\"", what);
    has_(l, "\"x0\":\"{\\\"name\\\": \\\"FloatDistribution\\\", \\\"attributes\\\": {\\\"step\\\": "
            "null, \\\"low\\\": -5.0, \\\"high\\\": 10.0, \\\"log\\\": false}}\"", what);
    CHECK(!l || (strstr(l, "\"datetime_complete\"") != NULL) == (status[i] != FOX_ST_RUNNING),
          "%s: datetime_complete only when finished", what);
    free(l);
  }

  /* A directory that does not exist: FOX_EFAIL naming the file, nothing written. */
  char bad[600];
  snprintf(bad, sizeof bad, "%s/nodir/x.log", dir);
  struct fox_err e2 = {0};
  CHECK(optuna_journal_write(&s, dir, bad, &st, &e2) == FOX_EFAIL && strstr(e2.msg, bad),
        "missing directory: %s", e2.msg);
  /* Rewritten in place: no temporary left beside it. */
  CHECK(optuna_journal_write(&s, dir, path, &st, &e) == 0, "rewrite: %s", e.msg);
  DIR *d = opendir(dir);
  struct dirent *de;
  int temps = 0;
  while (d && (de = readdir(d)))
    temps += strstr(de->d_name, ".tmp.") != NULL;
  if (d)
    closedir(d);
  CHECK(temps == 0, "%d temporary files left in %s", temps, dir);

  study_free(&s);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0, "%s", cmd);
  return fox_check_done("test_optuna_journal");
}
