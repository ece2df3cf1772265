/* foxopt: hyperparameter optimisation for RL trading agents. Dispatches the subcommands of
 * DESIGN.md s3 and maps their status to the documented exit codes. */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "cli/cli.h"
#include "util/nearest.h"
#include "util/text.h"
#include "util/stop.h"
#include "util/temps.h"

static void usage_(FILE *f) {
  fprintf(f, "usage: foxopt COMMAND [ARGS]   (foxopt help COMMAND, or man foxopt-COMMAND, for "
             "each)\n\ncommands:\n");
  for (int i = 0; cli_commands[i]; i++)
    fprintf(f, "  %-8s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
  fprintf(f, "\n  -V, --version    the version\n  -h, --help       this text\n"
             "\nexit codes: 0 ok; 1 other failure; 2 bad usage or config; 3 bad input data or "
             "file;\n            75 stopped by SIGTERM/SIGUSR1 or study.timeout after a clean\n"
             "            checkpoint\n");
}

/* An unknown command's message with the nearest names. */
static int unknown_command_(const char *name) {
  const char *names[32];
  int n = 0;
  if (name[0] == '-') { /* foxopt's own options */
    static const char *const own[] = {"--help", "-h", "--version", "-V"};
    for (int i = 0; i < 4; i++)
      names[n++] = own[i];
  } else {
    for (int i = 0; cli_commands[i] && n < 30; i++)
      names[n++] = cli_commands[i]->name;
    names[n++] = "help";
  }
  char near[256], shown[256];
  nearest_names(name, names, n, near, sizeof near);
  snprintf(shown, sizeof shown, "%s", name);
  text_defuse(shown);
  fprintf(stderr, "foxopt: error: unknown %s '%s'%s%s (foxopt --help lists them)\n",
          name[0] == '-' ? "option" : "command", shown, near[0] ? ": " : "", near);
  return 2;
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
  const char *first = argv[1];
  if (cli_is_help(first) || (strcmp(first, "help") == 0 && argc == 2)) {
    usage_(stdout);
    return 0;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
    printf("foxopt %s\n", FOXOPT_VERSION);
    return 0;
  }
  if (strcmp(first, "help") == 0) {
    if (strcmp(argv[2], "help") == 0 && argc == 3) {
      usage_(stdout);
      return 0;
    }
    const struct cli_cmd *c = cli_find(argv[2]);
    if (!c)
      return unknown_command_(argv[2]);
    if (argc > 3) {
      fprintf(stderr, "foxopt help: error: one command only (foxopt help %s)\n", argv[2]);
      return 2;
    }
    cli_usage(c, stdout);
    return 0;
  }
  /* A control character in an argument (a directory named with an escape) would reach the
   * terminal raw in every message that names it: refused, as in a config. */
  for (int i = 1; i < argc; i++)
    if (text_bad_char(argv[i]) && strcmp(argv[i - 1], "--set") != 0 &&
        strncmp(argv[i], "--set=", 6) != 0) { /* --set's own check names the byte and key */
      char shown[256];
      snprintf(shown, sizeof shown, "%s", argv[i]);
      text_defuse(shown);
      fprintf(stderr, "foxopt: error: argument %d ('%s') holds a control character or invalid "
                      "UTF-8: rename it\n", i, shown);
      return 2;
    }
  const struct cli_cmd *c = cli_find(first);
  if (!c)
    return unknown_command_(first);
  temps_install(); /* after run's own SIGTERM handler (preinit), which it leaves */
  struct fox_err e = {0};
  struct cli_args a;
  int rc = cli_args(c, argc - 1, argv + 1, &a, &e);
  if (rc == 0 && a.help) {
    cli_usage(c, stdout);
    cli_args_free(&a);
    return 0;
  }
  if (rc == 0)
    rc = c->run(a.argc, a.argv, &e);
  cli_args_free(&a);
  text_defuse(e.msg); /* names and values from argv or a file may hold terminal escapes */
  if (rc != 0 && !e.quiet)
    fprintf(stderr, "foxopt %s: error: %s\n", c->name, e.msg[0] ? e.msg : "failed");
  fflush(stdout);
  return fox_exit_code(rc);
}
