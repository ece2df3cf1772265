/* foxopt run: a hyperparameter study (DESIGN.md s3, s4, s8) in steps: take the work of the
 * current rung, run it, record it, write study.h5 and trials.csv, until the study is done or a
 * SIGTERM/SIGUSR1 asks it to stop (exit 75 after the checkpoint; --resume continues). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "live/live.h"
#include "mpi/coordinator.h"
#include "study/pbt.h"
#include "study/rankfile.h"
#include "study/runner.h"
#include "study/study_h5.h"
#include "study/work.h"
#include "util/dirlock.h"
#include "util/fsutil.h"
#include "util/progress.h"
#include "util/stop.h"

static const struct cli_opt opts_[] = {
    {"-o", "OUTDIR", "where the study goes (default: study.name in the current directory)"},
    {"--resume", NULL, "continue the study in OUTDIR (CONFIG.yaml may be left out; if given it "
                       "must be the study's own, with the same --set overrides); --set "
                       "study.trials=N with a larger N continues a study, finished or not, to N "
                       "trials, and --set study.timeout=T may change (with or without "
                       "CONFIG.yaml; any other change is refused); with "
                       "CONFIG.yaml where OUTDIR holds no study.h5 yet, it starts the study"},
    {"--backend", "B", "where trials run: auto, cpu or cuda, overriding train.backend"},
    {"--set", "K=V", "override any config key, e.g. --set study.trials=50 (every key is in "
                     "foxopt(1) and docs/config-keys.md)"},
    {NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_run = {
    .name = "run",
    .summary = "a hyperparameter study: samplers, schedulers, study.h5, resume",
    .synopsis = "CONFIG.yaml [-o OUTDIR] [--resume] [--backend auto|cpu|cuda]\n"
                "[--set key=value]...",
    .about =
        "Runs the study of CONFIG.yaml: trials proposed in rounds of study.round_size by\n"
        "study.sampler (tpe, random, grid, nsga2) over `parameters:`, trained and evaluated on\n"
        "eval.split, pruned by study.scheduler (none, successive_halving, hyperband: one objective\n"
        "only), or trained as a population by pbt: study.scheduler.population members in\n"
        "generations of `interval` epochs, the bottom quantile copying a top member's whole state\n"
        "and exploring its parameters; every (member, generation) segment a row with its member,\n"
        "generation, parent and exploited. study.objective is one {metric, direction} or a list of\n"
        "up to 4 (tpe, random, grid and nsga2 then search for the Pareto front),\n"
        "study.constraints a list of \"METRIC OP NUMBER\"; study.repeats seeds per\n"
        "configuration, eval.folds walk-forward folds, their cells\n"
        "aggregated by study.objective.aggregate (mean, median, iqm, lcb). After every step\n"
        "OUTDIR/study.h5 and OUTDIR/trials.csv are rewritten (temporary name, then rename;\n"
        "steps shorter than 2 s at most every 2 s, and the last step always);\n"
        "OUTDIR/rank-NNNN.h5 holds the dataset rank NNNN uploaded and every trial it ran.\n"
        "\n"
        "As an MPI job (mpirun -np N foxopt run ..., or srun in an allocation) rank 0 coordinates\n"
        "and also runs trials; each rank takes the device local_rank % devices (the CPU where there\n"
        "is none) and pulls the step's trials one at a time (a pbt generation's segments go where\n"
        "the states they continue from are held, and a missing state comes from the rank that\n"
        "holds it over MPI); the table does not depend on N.\n"
        "\n"
        "One run per OUTDIR: rank 0 holds OUTDIR/.lock for the whole run; another run or --resume\n"
        "there meanwhile is refused (exit 2, naming its pid and host). report, info and backtest\n"
        "--study read a live study.",
    .opts = opts_,
    .after =
        "SIGTERM or SIGUSR1 stops the study at the next safe point: the trial segments in flight\n"
        "are abandoned (they rerun from their last checkpoint), the study is saved, exit 75; a stop\n"
        "before the run took OUTDIR's lock writes nothing and exits 75 too.",
    .exits = "0 done, 1 failure, 2 bad usage or config (FILE:LINE named) or OUTDIR in use,\n"
             "            3 bad data or study file, 75 stopped after a clean checkpoint or before\n"
             "            anything was written (run again with --resume)",
    .run = cmd_run,
};

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
      else if (strchr(v, '\n'))
        return fox_errf(e, FOX_EUSAGE, "--set '%s': a value on one line expected", v);
      else if (a->nset < 256)
        a->sets[a->nset++] = v;
      else
        return fox_errf(e, FOX_EUSAGE, "too many --set");
    } else if (!a->config) {
      a->config = s;
    } else {
      return fox_errf(e, FOX_EUSAGE, "one config file only");
    }
  }
  if (!a->config && !a->resume)
    return fox_errf(e, FOX_EUSAGE, "CONFIG.yaml is required (foxopt help run)");
  if (!a->outdir && !a->config)
    return fox_errf(e, FOX_EUSAGE, "--resume without CONFIG.yaml needs -o OUTDIR");
  for (int i = 0; !a->config && i < a->nset; i++)
    if (strncmp(a->sets[i], "study.trials=", 13) != 0 &&
        strncmp(a->sets[i], "study.timeout=", 14) != 0)
      return fox_errf(e, FOX_EUSAGE, "--set %s without CONFIG.yaml: a resumed study keeps the "
                                     "config and overrides it was started with (foxopt info "
                                     "OUTDIR/study.h5 shows them); only study.trials=N (more "
                                     "trials) and study.timeout=T may be given", a->sets[i]);
  if (a->backend && strcmp(a->backend, "auto") && strcmp(a->backend, "cpu") &&
      strcmp(a->backend, "cuda"))
    return fox_errf(e, FOX_EUSAGE, "--backend '%s': expected auto, cpu or cuda", a->backend);
  return 0;
}

/* Rank 0 takes OUTDIR's lock before anything in it is read or written, and holds it to the end
 * of the run; the other ranks of the job wait for its go (agree_) instead. A second run, or a
 * second --resume, is refused here, before it touches the first one's files. A stop that came
 * before this point ends the run with nothing written. *fresh (rank 0): a new study, also for
 * --resume where no study.h5 was written yet (a run stopped or killed before its first
 * checkpoint). */
static int claim_(const struct world *w, const struct run_args_ *a, const char *outdir,
                  struct dirlock *lock, int *fresh, struct fox_err *e) {
  if (stop_signal())
    return fox_errf(e, FOX_ESTOP, "stopped by signal %d before the study started: nothing was "
                                  "written to %s; the same command starts it again (--resume "
                                  "too)", stop_signal(), outdir);
  if (w->rank != 0)
    return 0;
  if (!a->config && !fs_exists(outdir))
    return fox_errf(e, FOX_EDATA, "%s: no such directory: there is no study to resume", outdir);
  if (a->config)
    FOX_TRY(fs_mkdirs(outdir, e));
  FOX_TRY(dirlock_take(lock, outdir, "foxopt run", e));
  /* trials/ and tb/ hold only foxopt's files, removed by name: never a link to elsewhere
   * (state/ may be: checkpoints on scratch; only foxopt's names are removed there) */
  static const char *const own_dirs[] = {"trials", "tb"};
  for (int i = 0; i < 2; i++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", outdir, own_dirs[i]);
    FOX_TRY(fs_own_dir_check(dir, e));
  }
  FOX_TRY(rankfile_remove_temps(outdir, e));
  char path[4200];
  snprintf(path, sizeof path, "%s/study.h5", outdir);
  int have = fs_exists(path);
  if (a->resume && have)
    FOX_TRY(rankfile_check_layout(outdir, e));
  if (!a->resume && have)
    return fox_errf(e, FOX_EUSAGE, "%s exists: add --resume to continue that study, or choose "
                                   "another -o OUTDIR", path);
  if (a->resume && !have && !a->config)
    return fox_errf(e, FOX_EDATA, "%s: no study to resume (a run stopped before its first "
                                  "checkpoint leaves none): give CONFIG.yaml to start it", path);
  /* trials.csv is written after study.h5, which foxopt only ever replaces: a trials.csv alone
   * means study.h5 was moved or deleted, and starting afresh would delete the study's files. */
  char csv[4200];
  snprintf(csv, sizeof csv, "%s/trials.csv", outdir);
  if (a->resume && !have && fs_exists(csv))
    return fox_errf(e, FOX_EDATA, "%s: missing, but %s shows a study that recorded steps: "
                                  "restore study.h5 to resume it, or choose another -o OUTDIR",
                    path, csv);
  *fresh = !have;
  return 0;
}

/* `sets` ("\n"-separated K=V lines) without its study.trials and study.timeout lines: the keys
 * a resume may change. */
static char *sets_but_trials_(const char *sets) {
  char *out = calloc(strlen(sets) + 1, 1);
  for (const char *p = sets; out && *p;) {
    size_t len = strcspn(p, "\n");
    if (strncmp(p, "study.trials=", 13) != 0 && strncmp(p, "study.timeout=", 14) != 0)
      strncat(strncat(out, p, len), "\n", 2);
    p += len + (p[len] == '\n');
  }
  return out;
}

/* Whether the K=V line at p (len bytes) sets a key that one of the command line's sets. */
static int overridden_(const char *p, size_t len, const struct run_args_ *a) {
  size_t k = strcspn(p, "=");
  for (int i = 0; k < len && i < a->nset; i++)
    if (strncmp(a->sets[i], p, k + 1) == 0)
      return 1;
  return 0;
}

/* The --set lines a resume asks for: the given config's, or without one the stored lines but
 * those of the keys the command line sets, then the command line's (study.trials and
 * study.timeout only: parse_), so a requeue script repeating them adds nothing. */
static char *wanted_sets_(const struct study *s, const struct study *given,
                          const struct run_args_ *a) {
  if (a->config)
    return strdup(given->config_sets);
  size_t n = strlen(s->config_sets) + 2;
  for (int i = 0; i < a->nset; i++)
    n += strlen(a->sets[i]) + 1;
  char *out = calloc(n, 1);
  if (!out)
    return NULL;
  for (const char *p = s->config_sets; *p;) {
    size_t len = strcspn(p, "\n");
    if (!overridden_(p, len, a))
      strncat(strncat(out, p, len), "\n", 2);
    p += len + (p[len] == '\n');
  }
  for (int i = 0; i < a->nset; i++)
    strcat(strcat(out, a->sets[i]), i + 1 < a->nset ? "\n" : "");
  size_t len = strlen(out);
  if (len && out[len - 1] == '\n')
    out[len - 1] = '\0';
  return out;
}

/* A resume that changes study.trials alone continues the study to the new count, as Optuna's
 * optimize() on a loaded study adds trials: its rows so far stay as they are, the samplers and
 * schedulers go on from them. pbt's trials are population x generations: not extended. */
static int extend_(struct study *s, const char *text, const char *sets, const char *outdir,
                   struct fox_err *e) {
  struct study want;
  char name[4200];
  snprintf(name, sizeof name, "%s/study.h5", outdir);
  FOX_TRY(study_create_text(&want, text, sets, name, e));
  int rc = 0;
  if (want.cfg.study.trials != s->cfg.study.trials && s->cfg.study.scheduler == FOX_SCHED_PBT)
    rc = fox_errf(e, FOX_EUSAGE, "study.trials %d: a pbt study's trials are its population x "
                                 "generations (train.epochs / study.scheduler.interval): it "
                                 "cannot be given more trials", want.cfg.study.trials);
  else if (want.cfg.study.trials < s->cfg.study.trials)
    rc = fox_errf(e, FOX_EUSAGE, "study.trials %d: the study in %s runs %d trials (%d made); a "
                                 "resume may add trials, never take them away (--set "
                                 "study.trials=%d or more)", want.cfg.study.trials, outdir,
                  s->cfg.study.trials, s->n, s->cfg.study.trials);
  if (rc == 0) {
    char *keep = strdup(sets);
    if (!keep) {
      study_free(&want);
      return fox_errf(e, FOX_EFAIL, "out of memory");
    }
    s->cfg.study.trials = want.cfg.study.trials;
    s->cfg.study.timeout = want.cfg.study.timeout;
    s->total = want.total;
    free(s->config_sets);
    s->config_sets = keep;
  }
  study_free(&want);
  return rc;
}

/* The study, on every rank: `given` (which *s takes over) when fresh, else the stored one,
 * whose config must then be the one given, or differ in study.trials alone (extend_). */
static int open_study_(struct study *s, struct study *given, const struct run_args_ *a,
                       const char *outdir, int fresh, struct fox_err *e) {
  if (fresh) {
    *s = *given;
    return 0;
  }
  int rc = study_load(s, outdir, e);
  if (rc == 0 && (a->config || a->nset)) {
    const char *text = a->config ? given->config_text : s->config_text;
    char *sets = wanted_sets_(s, given, a);
    char *x = sets ? sets_but_trials_(sets) : NULL, *y = sets_but_trials_(s->config_sets);
    if (!sets || !x || !y)
      rc = fox_errf(e, FOX_EFAIL, "out of memory");
    else if (strcmp(text, s->config_text) != 0 || strcmp(x, y) != 0)
      rc = fox_errf(e, FOX_EUSAGE, "%s: --resume with another config or other --set overrides "
                                   "than the study's (they are in %s/study.h5, attributes "
                                   "config and config_sets); only --set study.trials=N (more "
                                   "trials) and --set study.timeout=T may differ",
                    a->config ? a->config : outdir, outdir);
    else if (strcmp(sets, s->config_sets) != 0)
      rc = extend_(s, text, sets, outdir, e);
    free(sets), free(x), free(y);
    if (rc != 0)
      study_free(s);
  }
  if (a->config)
    study_free(given);
  return rc;
}

/* The progress line: at the first step, then at most once a second (a study of quick steps
 * printed one a step, and the best among n trials is O(n) to find: O(n^2) a study with rounds
 * of 1), and always at the end (last). */
static void progress_(struct progress *p, const struct study *s, double t0, int running,
                      int last) {
  double now = now_();
  if (!last && p->shown >= 0 && now - p->shown < 1.0)
    return;
  p->shown = now;
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

static void summary_(const struct study *s, const char *outdir, int ranks) {
  if (s->generations > 0 && s->total < s->cfg.study.population * s->generations)
    printf("pbt: every member of generation %d failed: there is no state to continue from, so "
           "the study ends there (%d of %d generations)\n", s->rounds - 1, s->rounds,
           s->generations);
  int b = study_best(s);
  if (b < 0) {
    if (s->n_con > 0)
      printf("no complete trial has a value of %s and meets every constraint; see "
             "%s/trials.csv (column feasible)\n", s->metric_names[s->objective], outdir);
    else
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
  double busy = 0;
  for (int i = 0; i < s->n; i++)
    busy += s->trials[i].seconds;
  printf("%d steps in %.2f s on %d rank%s x %d trial thread%s: trials ran %.1f%% of that "
         "thread time\n", s->steps, s->wall_seconds, ranks, ranks > 1 ? "s" : "",
         s->cfg.study.trials_per_device, s->cfg.study.trials_per_device > 1 ? "s" : "",
         s->wall_seconds > 0
             ? 100.0 * busy / (s->wall_seconds * ranks * s->cfg.study.trials_per_device)
             : 0.0);
  printf("wrote %s/study.h5, %s/trials.csv, %d rank file%s (%s/rank-NNNN.h5) and the trial "
         "files (%s/trials/ID.h5%s)\n", outdir, outdir, ranks, ranks > 1 ? "s" : "", outdir, outdir,
         s->repeats > 1 ? "; repeat R > 0 in ID-rR.h5" : "");
}

/* The status rank 0 (or the first failing rank) reached, on every rank; the others stay quiet. */
static int agree_(struct world *w, int rc, struct fox_err *e) {
  int mine = rc != 0 ? w->rank : w->size, first = mine;
  if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, w->comm) != MPI_SUCCESS)
    return fox_errf(e, FOX_EFAIL, "MPI_Allreduce failed while starting the study");
  if (first == w->size)
    return 0;
  int code = rc;
  MPI_Bcast(&code, 1, MPI_INT, first, w->comm);
  if (first != w->rank) {
    fox_err_clear(e);
    e->quiet = 1;
  }
  return code;
}

/* Rank 0's checkpoint of the last recorded step, written while the next step's trials run.
 * Every step's, when steps are slower than FOX_SAVE_EVERY_S; faster ones (test functions,
 * short trials) are checkpointed at most that often and never for more than a tenth of the
 * time, because a checkpoint rewrites study.h5 and trials.csv whole: one per step made a
 * study O(n^2) (issue 28: 6.9 ms a trial at 50K trials). The first step, a stop and the end
 * are always written; a kill loses at most the steps since the last checkpoint, which a
 * --resume reruns to the same table. */
#define FOX_SAVE_EVERY_S 2.0
struct saver_ {
  struct study *s;
  const char *outdir;
  int due, rc;
  double last_end, last_cost; /* when the last checkpoint ended and what it took (now_()) */
  struct fox_err err;
};

static void save_(void *ctx) {
  struct saver_ *sv = ctx;
  if (!sv->due || sv->rc != 0)
    return;
  sv->due = 0;
  double t0 = now_();
  if ((sv->rc = study_save(sv->s, sv->outdir, &sv->err)) == 0) {
    runner_prune_states(sv->outdir, sv->s);
    rankfile_drop_versions(sv->outdir, sv->s);
  }
  sv->last_end = now_();
  sv->last_cost = sv->last_end - t0;
}

/* Whether the step just recorded is checkpointed (see struct saver_). */
static int save_due_(const struct saver_ *sv) {
  double wait = sv->last_cost * 10 > FOX_SAVE_EVERY_S ? sv->last_cost * 10 : FOX_SAVE_EVERY_S;
  return sv->last_end < 0 || now_() - sv->last_end >= wait;
}

/* live_prune's question, of the study (study_recorded_epochs). */
static int recorded_(const void *ctx, int id, int repeat, int member) {
  return study_recorded_epochs(ctx, id, repeat, member);
}

static int run_(struct world *w, struct run_args_ *a, struct dirlock *lock,
                const volatile sig_atomic_t *stop, struct fox_err *e) {
  struct study given, s;
  char outdir[4096];
  int rc = a->config ? study_create(&given, a->config, a->sets, a->nset, e) : 0;
  if (rc == 0 && a->config && (rc = live_check(given.cfg.tensorboard, e)) != 0)
    study_free(&given); /* before OUTDIR is made */
  int have_given = a->config && rc == 0, fresh = 0;
  if (rc == 0) {
    snprintf(outdir, sizeof outdir, "%s", a->outdir ? a->outdir : given.cfg.study.name);
    rc = claim_(w, a, outdir, lock, &fresh, e);
  }
  rc = agree_(w, rc, e);
  /* Rank 0's look at OUTDIR decides for all: another NFS client may see it later. */
  if (rc == 0 && MPI_Bcast(&fresh, 1, MPI_INT, 0, w->comm) != MPI_SUCCESS)
    rc = fox_errf(e, FOX_EFAIL, "MPI_Bcast failed while starting the study");
  if (rc != 0) {
    if (have_given)
      study_free(&given);
    return rc;
  }
  int orc = open_study_(&s, &given, a, outdir, fresh, e);
  if (orc == 0 && (orc = live_check(s.cfg.tensorboard, e)) != 0)
    study_free(&s); /* a resume without CONFIG.yaml: before any file is put right */
  if ((rc = agree_(w, orc, e)) != 0) {
    if (orc == 0)
      study_free(&s);
    return rc;
  }
  if (w->rank == 0 && fresh && a->resume)
    fprintf(stderr, "foxopt run: %s holds no study yet: --resume starts it\n", outdir);
  /* Rank 0 holds the study to its dataset before any rank writes a file of this run. */
  if ((rc = agree_(w, w->rank == 0 ? runner_check_data(&s, outdir, fresh, e) : 0, e)) != 0) {
    study_free(&s);
    return rc;
  }
  /* Under the lock, rank files without a study.h5 are a dead run's: no rank appends to them. */
  if (w->rank == 0 && fresh && (rc = rankfile_remove_all(outdir, e)) == 0)
    rc = live_remove(outdir, e);
  /* The stopped or killed run's files, put right before any rank opens its own. */
  if (rc == 0 && w->rank == 0 && !fresh && (rc = rankfile_scrub(outdir, &s, e)) == 0) {
    rankfile_check(outdir, &s, stderr);
    rc = live_prune(outdir, s.repeats, recorded_, &s, e);
  }
  if ((rc = agree_(w, rc, e)) != 0) {
    study_free(&s);
    return rc;
  }
  struct runner r;
  rc = runner_open(&r, &s, outdir, w->rank, w->local_rank, w->local_size, w->host_root,
                   w->device, a->backend, stop, e);
  if (rc == 0)
    s.reward_scale = r.reward_scale;
  if (rc == 0 && r.have_data)
    s.bars_per_year = r.ds.bars_per_year;
  if (rc == 0 && w->rank == 0)
    runner_prune_states(outdir, &s);
  int opened = rc == 0;
  if ((rc = agree_(w, rc, e)) != 0) {
    if (opened) /* another rank's failed */
      runner_close(&r);
    study_free(&s);
    return rc;
  }
  /* Every host's copy is written now: each device's sums against its host's copy. */
  if ((rc = agree_(w, rankfile_verify(outdir, w->rank, e), e)) != 0) {
    runner_close(&r);
    study_free(&s);
    return rc;
  }
  struct coordinator c;
  int cap = study_max_items(&s);
  rc = agree_(w, coord_open(&c, w, r.be && r.be == backend_cuda(), cap, e), e);
  struct work_item *items = malloc((size_t)cap * sizeof *items);
  struct work_result *res = malloc((size_t)cap * sizeof *res);
  if (rc == 0 && (!items || !res))
    rc = fox_errf(e, FOX_EFAIL, "out of memory");
  struct progress p;
  progress_init(&p, stdout);
  double t0 = now_(), wall0 = s.wall_seconds;
  int stopped = 0, pending = 0; /* pending: rank 0's own failure, announced with the next step */
  int timed = 0; /* study.timeout passed: rank 0 starts no more work (every rank learns below) */
  int steps0 = s.steps;
  struct saver_ sv = {&s, outdir, 0, 0, -1, 0, {0}};
  if (w->rank == 0) {
    c.idle = save_;
    c.idle_ctx = &sv;
  }
  while (rc == 0) {
    int n = 0;
    double step0 = now_(), plan = 0;
    if (w->rank == 0 && !stopped && pending == 0 && s.cfg.study.timeout > 0 &&
        s.steps > steps0 && now_() - t0 >= s.cfg.study.timeout) /* a step each run, at least */
      timed = 1; /* n 0: every rank leaves the loop as at the study's end */
    else if (w->rank == 0 && !stopped && pending == 0) {
      pending = study_next_work(&s, items, &n, e);
      plan = now_() - step0;
      if (n > 0)
        progress_(&p, &s, t0, n, 0);
    }
    if (pending != 0)
      n = pending;
    if ((rc = coord_step(&c, &r, items, &n, res, &stopped, e)) != 0 || n <= 0) {
      if (rc == 0 && n < 0 && w->rank != 0)
        pending = n; /* rank 0 failed (its message says why): every rank ends with its status */
      break;
    }
    if (w->rank == 0 && sv.rc != 0) { /* the checkpoint written during this step failed */
      *e = sv.err;
      pending = sv.rc;
    }
    if (w->rank == 0 && pending == 0) {
      study_record(&s, res, n);
      pbt_account(&s, items, n, res, plan, now_() - step0, c.xfer_count, c.xfer_bytes,
                  c.xfer_seconds);
      s.steps++;
      s.wall_seconds = wall0 + now_() - t0;
      sv.due = save_due_(&sv);
    }
  }
  if (w->rank == 0) /* the deadline and the last work may have come together */
    timed = timed && !study_finished(&s);
  if (rc == 0 && w->size > 1 && MPI_Bcast(&timed, 1, MPI_INT, 0, w->comm) != MPI_SUCCESS)
    rc = fox_errf(e, FOX_EFAIL, "MPI_Bcast failed at the study's end");
  if (rc == 0 && w->rank == 0 && pending == 0) { /* the last step's checkpoint, or "finished" */
    s.wall_seconds = wall0 + now_() - t0;
    sv.due = 1;
    save_(&sv);
    if (sv.rc != 0) {
      *e = sv.err;
      pending = sv.rc;
    }
  }
  if (rc == 0 && pending != 0)
    rc = w->rank == 0 ? pending : (e->quiet = 1, pending);
  /* study.h5 now records every trial file (finished, stopped or timed out cleanly): the files
   * kept for a killed run go */
  if (rc == 0 && w->rank == 0)
    rankfile_drop_versions(outdir, NULL);
  if (w->rank == 0) {
    progress_(&p, &s, t0, 0, 1);
    progress_end(&p);
  }
  if (rc == 0 && stopped) {
    if (w->rank == 0)
      rc = fox_errf(e, FOX_ESTOP, "stopped by signal %d after a clean checkpoint of %s; "
                                  "continue with: foxopt run --resume -o %s", stopped, outdir,
                    outdir);
    else
      rc = FOX_ESTOP, e->quiet = 1;
  } else if (rc == 0 && timed) {
    if (w->rank == 0)
      rc = fox_errf(e, FOX_ESTOP, "stopped at study.timeout (%g s) with %d of %d trials made, "
                                  "after a clean checkpoint of %s; continue with: foxopt run "
                                  "--resume -o %s", s.cfg.study.timeout, s.n, s.total, outdir,
                    outdir);
    else
      rc = FOX_ESTOP, e->quiet = 1;
  } else if (rc == 0 && w->rank == 0) {
    summary_(&s, outdir, w->size);
  }
  free(items);
  free(res);
  coord_close(&c);
  runner_close(&r);
  study_free(&s);
  return rc;
}

int cmd_run(int argc, char **argv, struct fox_err *e) {
  struct run_args_ a;
  FOX_TRY(parse_(argc, argv, &a, e));
  /* Before MPI's start-up: a preemption signal during it is a stop at the first safe point,
   * not a death by the signal (which would leave a SLURM job unrequeued). */
  const volatile sig_atomic_t *stop = stop_install();
  struct world w;
  struct dirlock lock = {.fd = -1};
  int rc = world_init(&w, NULL, NULL, e);
  if (rc == 0)
    rc = run_(&w, &a, &lock, stop, e);
  if (rc != 0 && !e->quiet && w.size > 1 && w.rank > 0)
    fox_err_wrap(e, "[rank %d]", w.rank);
  world_finalize(&w);
  /* After every rank has finished with OUTDIR. */
  dirlock_release(&lock);
  return rc;
}
