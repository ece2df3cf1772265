/* foxopt: hyperparameter optimisation for RL trading agents. Dispatches the subcommands of
 * DESIGN.md s3 and maps their status to the documented exit codes. */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "cli/cli.h"
#include "util/stop.h"

struct command_ {
  const char *name;
  int (*run)(int argc, char **argv, struct fox_err *e);
  const char *summary;
};

static const struct command_ commands_[] = {
    {"synth", cmd_synth, "realistic synthetic 1-minute bars (CSV)"},
    {"import", cmd_import, "CSV bars -> dataset.h5 with the 51 features"},
    {"info", cmd_info, "what a foxopt HDF5 file holds"},
    {"train", cmd_train, "train one DQN/PPO trial with fixed parameters -> trial.h5"},
    {"backtest", cmd_backtest, "metrics of an action sequence over a split (walk-forward folds)"},
    {"run", cmd_run, "a hyperparameter study: samplers, schedulers, study.h5, resume"},
    {"report", cmd_report, "best trials, luck (DSR, PBO), --test, CSV, plots, one-page --html"},
    {"export", cmd_export, "a study as Optuna's journal (optuna.load_study, optuna-dashboard)"},
};

static void usage_(FILE *f) {
  fprintf(f, "usage: foxopt COMMAND [ARGS]   (foxopt COMMAND --help for each)\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands_ / sizeof *commands_; i++)
    fprintf(f, "  %-8s %s\n", commands_[i].name, commands_[i].summary);
  fprintf(f, "\nexit codes: 0 ok; 1 other failure; 2 bad usage or config; 3 bad input data or "
             "file;\n            75 stopped by SIGTERM/SIGUSR1 after a clean checkpoint\n");
}

/* `foxopt run`'s SIGTERM/SIGUSR1 handlers go in before any shared library's constructor runs:
 * glibc calls the executable's .preinit_array ahead of them, and they take a while (OpenBLAS
 * starts a thread per core, Open MPI and HDF5 set themselves up: 1-10 ms here, more on a large
 * node), during which a preemption signal killed the run outright (exit 143). Before this only
 * exec and the dynamic loader's mapping and relocation remain, which no process can guard
 * (10-20 ms here, with some 60 libraries): a signal then ends the process before it has
 * touched anything. cmd_run installs the handlers again, should a linker drop the section. */
static void preinit_stop_(int argc, char **argv, char **envp) {
  (void)envp;
  if (argc > 1 && argv && argv[1] && strcmp(argv[1], "run") == 0)
    stop_install();
}
__attribute__((section(".preinit_array"), used)) static void (*const preinit_stop_ptr_)(
    int, char **, char **) = preinit_stop_;

int main(int argc, char **argv) {
  /* Every file foxopt writes is closed on every path before exit. HDF5's own atexit close
   * would only revisit a file whose close already failed (a full disk), and in HDF5 1.10 that
   * crashes (SIGSEGV in H5F__close_cb) after the error was reported: no atexit close. */
  H5dont_atexit();
  if (argc < 2) {
    usage_(stderr);
    return 2;
  }
  if (cli_is_help(argv[1])) {
    usage_(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("foxopt %s\n", FOXOPT_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands_ / sizeof *commands_; i++) {
    if (strcmp(argv[1], commands_[i].name) == 0) {
      struct fox_err e = {0};
      int rc = commands_[i].run(argc - 1, argv + 1, &e);
      if (rc != 0 && !e.quiet)
        fprintf(stderr, "foxopt %s: error: %s\n", argv[1], e.msg[0] ? e.msg : "failed");
      fflush(stdout);
      return fox_exit_code(rc);
    }
  }
  fprintf(stderr, "foxopt: unknown command '%s'\n", argv[1]);
  usage_(stderr);
  return 2;
}
