/* foxopt run: a hyperparameter study (DESIGN.md s3, s4, s8) in steps: take the work of the
 * current rung, run it, record it, write study.h5 and trials.csv, until the study is done or a
 * SIGTERM/SIGUSR1 asks it to stop (exit 75 after the checkpoint; --resume continues). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "study/rankfile.h"
#include "study/runner.h"
#include "study/study_h5.h"
#include "util/fsutil.h"
#include "util/progress.h"
#include "util/stop.h"

static const char usage_[] =
    "usage: foxopt run CONFIG.yaml [-o OUTDIR] [--resume] [--backend auto|cpu|cuda]\n"
    "                  [--set key=value]...\n"
    "\n"
    "Runs the study of CONFIG.yaml: trials proposed in rounds of study.round_size by\n"
    "study.sampler (tpe, random, grid) over `parameters:`, trained and evaluated on eval.split,\n"
    "pruned by study.scheduler (none, successive_halving, hyperband). After every step\n"
    "OUTDIR/study.h5 and OUTDIR/trials.csv are rewritten (temporary name, then rename);\n"
    "OUTDIR/rank-0000.h5 holds the dataset this process uploaded and every trial it ran.\n"
    "\n"
    "  -o OUTDIR        where the study goes (default: study.name in the current directory)\n"
    "  --resume         continue the study in OUTDIR (CONFIG.yaml may be left out; if given it\n"
    "                   must be the study's own, with the same --set overrides)\n"
    "  --backend B      where trials run, overriding train.backend\n"
    "  --set K=V        override any config key, e.g. --set study.trials=50\n"
    "\n"
    "SIGTERM or SIGUSR1 stops the study at the next safe point: the trial segments in flight\n"
    "are abandoned (they rerun from their last checkpoint), the study is saved, exit 75.\n"
    "\n"
    "exit codes: 0 done, 1 failure, 2 bad usage or config (FILE:LINE named), 3 bad data or\n"
    "            study file, 75 stopped after a clean checkpoint (run again with --resume)\n";

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct run_args_ {
  const char *config, *outdir, *backend;
  int resume, nset;
  const char *sets[256];
};

static int parse_(int argc, char **argv, struct run_args_ *a, struct fox_err *e) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v;
    if (strcmp(s, "--resume") == 0) {
      a->resume = 1;
    } else if (!strcmp(s, "-o") || !strcmp(s, "--set") || !strcmp(s, "--backend")) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      if (s[1] == 'o')
        a->outdir = v;
      else if (s[2] == 'b')
        a->backend = v;
      else if (a->nset < 256)
        a->sets[a->nset++] = v;
      else
        return fox_errf(e, FOX_EUSAGE, "run: too many --set");
    } else if (s[0] == '-') {
      return fox_errf(e, FOX_EUSAGE, "run: unknown option '%s' (see --help)", s);
    } else if (!a->config) {
      a->config = s;
    } else {
      return fox_errf(e, FOX_EUSAGE, "run: one config file only");
    }
  }
  if (!a->config && !a->resume)
    return fox_errf(e, FOX_EUSAGE, "run: CONFIG.yaml is required\n%s", usage_);
  if (!a->outdir && !a->config)
    return fox_errf(e, FOX_EUSAGE, "run: --resume without CONFIG.yaml needs -o OUTDIR");
  if (a->backend && strcmp(a->backend, "auto") && strcmp(a->backend, "cpu") &&
      strcmp(a->backend, "cuda"))
    return fox_errf(e, FOX_EUSAGE, "run: --backend '%s': expected auto, cpu or cuda", a->backend);
  return 0;
}

/* A new study, or the one in OUTDIR for --resume (whose config must be the one given). */
static int open_study_(struct study *s, struct run_args_ *a, char *outdir, size_t n,
                       struct fox_err *e) {
  struct study given;
  if (a->config)
    FOX_TRY(study_create(&given, a->config, a->sets, a->nset, e));
  snprintf(outdir, n, "%s", a->outdir ? a->outdir : given.cfg.study.name);
  char path[4200];
  snprintf(path, sizeof path, "%s/study.h5", outdir);
  if (!a->resume) {
    if (fs_exists(path)) {
      study_free(&given);
      return fox_errf(e, FOX_EUSAGE, "%s exists: add --resume to continue that study, or choose "
                                     "another -o OUTDIR", path);
    }
    *s = given;
    return 0;
  }
  int rc = study_load(s, outdir, e);
  if (rc == 0 && a->config && strcmp(given.config_text, s->config_text) != 0) {
    rc = fox_errf(e, FOX_EUSAGE, "%s: --resume with another config than the study's (its text "
                                 "and --set overrides are in %s, attribute config)",
                  a->config, path);
    study_free(s);
  }
  if (a->config)
    study_free(&given);
  return rc;
}

static void progress_(struct progress *p, const struct study *s, double t0, int running) {
  int done = 0, pruned = 0, failed = 0;
  for (int i = 0; i < s->n; i++) {
    int st = s->trials[i].status;
    done += st != FOX_ST_RUNNING;
    pruned += st == FOX_ST_PRUNED;
    failed += st == FOX_ST_FAILED;
  }
  char el[32], eta[32], best[160] = "best -";
  double elapsed = now_() - t0;
  progress_duration(elapsed, el, sizeof el);
  progress_duration(done ? elapsed / done * (s->total - done) : NAN, eta, sizeof eta);
  int b = study_best(s);
  if (b >= 0)
    snprintf(best, sizeof best, "best %s %.6g (trial %d)", s->metric_names[s->objective],
             s->trials[b].metrics[s->objective], b);
  progress_line(p, "trials %d/%d  running %d  pruned %d  failed %d  %s  elapsed %s  eta %s",
                done, s->total, running, pruned, failed, best, el, eta);
}

static void summary_(const struct study *s, const char *outdir) {
  int b = study_best(s);
  if (b < 0) {
    printf("no trial finished with a value of %s; see %s/trials.csv\n",
           s->metric_names[s->objective], outdir);
    return;
  }
  const struct study_trial *t = &s->trials[b];
  printf("best trial %d: %s = %.6g (%s, %d epochs)\n", b, s->metric_names[s->objective],
         t->metrics[s->objective], study_status_names[t->status], t->epochs);
  for (int i = 0; i < s->space.n; i++) {
    char v[FOX_CHOICE_LEN];
    space_format(&s->space.p[i], t->x[i], v, sizeof v);
    if (v[0])
      printf("  %-28s %s\n", s->space.p[i].key, v);
  }
  printf("wrote %s/study.h5, %s/trials.csv, %s/rank-0000.h5\n", outdir, outdir, outdir);
}

int cmd_run(int argc, char **argv, struct fox_err *e) {
  for (int i = 1; i < argc; i++)
    if (cli_is_help(argv[i])) {
      fputs(usage_, stdout);
      return 0;
    }
  struct run_args_ a;
  FOX_TRY(parse_(argc, argv, &a, e));
  struct study s;
  char outdir[4096];
  FOX_TRY(open_study_(&s, &a, outdir, sizeof outdir, e));
  int rc = fs_mkdirs(outdir, e);
  const volatile sig_atomic_t *stop = stop_install();
  struct runner r;
  int opened = 0;
  if (rc == 0 && (rc = runner_open(&r, &s, outdir, 0, a.backend, stop, e)) == 0)
    opened = 1;
  if (rc == 0 && a.resume)
    rc = rankfile_scrub(outdir, &s, e);
  if (rc == 0)
    runner_prune_states(outdir, &s);
  int cap = s.cfg.study.round_size;
  struct work_item *items = malloc((size_t)cap * sizeof *items);
  struct work_result *res = malloc((size_t)cap * sizeof *res);
  if (rc == 0 && (!items || !res))
    rc = fox_errf(e, FOX_EFAIL, "run: out of memory");
  struct progress p;
  progress_init(&p, stdout);
  double t0 = now_();
  while (rc == 0 && !*stop) {
    int n;
    if ((rc = study_next_work(&s, items, &n, e)) != 0 || n == 0)
      break;
    progress_(&p, &s, t0, n);
    if ((rc = runner_run(&r, items, n, res, e)) != 0)
      break;
    study_record(&s, res, n);
    if ((rc = study_save(&s, outdir, e)) != 0)
      break;
    runner_prune_states(outdir, &s);
  }
  if (rc == 0 && !*stop)
    rc = study_save(&s, outdir, e); /* a finished study says so */
  progress_(&p, &s, t0, 0);
  progress_end(&p);
  if (rc == 0 && *stop)
    rc = fox_errf(e, FOX_ESTOP, "stopped by signal %d after a clean checkpoint of %s; continue "
                                "with: foxopt run --resume -o %s", stop_signal(), outdir, outdir);
  else if (rc == 0)
    summary_(&s, outdir);
  free(items);
  free(res);
  if (opened)
    runner_close(&r);
  study_free(&s);
  return rc;
}
