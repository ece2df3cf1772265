/* foxopt gen: the files a package installs, written from the tables the binary itself parses
 * with: man pages, bash and zsh completion, and docs/config-keys.md. CMake runs it at build
 * time (cmake/FoxInstall.cmake). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gen.h"
#include "util/fsutil.h"

static const struct cli_opt opts_[] = {{NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_gen = {
    .name = "gen",
    .summary = "man pages, shell completion, the config-key reference (for packagers)",
    .synopsis = "man DIR | bash [FILE] | zsh [FILE] | config-md [FILE]",
    .about = "Writes what an installation needs from the option and config tables that the\n"
             "parser uses, so that none of it can name an option or key foxopt does not know:\n"
             "  man DIR    DIR/foxopt.1 (the commands and every config key) and DIR/foxopt-CMD.1\n"
             "             for each command\n"
             "  bash       the bash completion script\n"
             "  zsh        the zsh completion function (#compdef foxopt)\n"
             "  config-md  docs/config-keys.md\n"
             "each to FILE (a temporary name, then renamed) or to standard output.",
    .opts = opts_,
    .exits = "0 ok, 1 a page cannot be written, 2 bad usage",
    .words = "man bash zsh config-md",
    .run = cmd_gen,
};

/* One page through a memory stream, then to PATH under a temporary name and renamed. */
static int page_(const char *dir, const char *name, const struct cli_cmd *c, struct fox_err *e) {
  char *buf = NULL, path[4200];
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return fox_errf(e, FOX_EFAIL, "out of memory");
  if (c)
    gen_man_command(c, f);
  else
    gen_man_main(f);
  if (fclose(f) != 0) {
    free(buf);
    return fox_errf(e, FOX_EFAIL, "out of memory");
  }
  snprintf(path, sizeof path, "%s/%s.1", dir, name);
  int rc = fs_write_bytes(path, buf, len, e);
  free(buf);
  return rc;
}

int cmd_gen(int argc, char **argv, struct fox_err *e) {
  if (argc < 2)
    return fox_errf(e, FOX_EUSAGE, "what to write is required: man DIR, bash, zsh or config-md");
  const char *what = argv[1];
  if (strcmp(what, "man") == 0) {
    if (argc != 3)
      return fox_errf(e, FOX_EUSAGE, "man: one directory DIR expected");
    FOX_TRY(fs_mkdirs(argv[2], e));
    FOX_TRY(page_(argv[2], "foxopt", NULL, e));
    for (int i = 0; cli_commands[i]; i++) {
      char name[64];
      snprintf(name, sizeof name, "foxopt-%s", cli_commands[i]->name);
      FOX_TRY(page_(argv[2], name, cli_commands[i], e));
    }
    return 0;
  }
  void (*gen)(FILE *) = strcmp(what, "bash") == 0        ? gen_bash
                        : strcmp(what, "zsh") == 0       ? gen_zsh
                        : strcmp(what, "config-md") == 0 ? gen_config_md
                                                         : NULL;
  if (!gen)
    return fox_errf(e, FOX_EUSAGE, "'%s': expected man DIR, bash, zsh or config-md", what);
  if (argc > 3)
    return fox_errf(e, FOX_EUSAGE, "%s: one FILE at most ('%s' too)", what, argv[3]);
  if (argc == 2 || strcmp(argv[2], "-") == 0) { /* "-": standard output too */
    gen(stdout);
    if (fflush(stdout) != 0 || ferror(stdout))
      return fox_errf(e, FOX_EFAIL, "standard output: %s", strerror(errno));
    return 0;
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return fox_errf(e, FOX_EFAIL, "out of memory");
  gen(f);
  int rc = fclose(f) == 0 ? fs_write_bytes(argv[2], buf, len, e)
                          : fox_errf(e, FOX_EFAIL, "out of memory");
  free(buf);
  return rc;
}
