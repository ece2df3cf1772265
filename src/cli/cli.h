/* The subcommands of DESIGN.md s3. Each returns a status (util/error.h) and prints its own
 * results; main() prints the error message and turns the status into the exit code. */
#ifndef FOX_CLI_H
#define FOX_CLI_H

#include <stdio.h>

#include "util/error.h"

/* A subcommand's options and texts: the one table that `foxopt CMD --help`, the parser's
 * checks (cli_args), the man pages and the shell completion are written from, so that none of
 * them can name an option the others do not know. */
struct cli_opt {
  const char *name;  /* "--set", or a short "-o" */
  const char *arg;   /* the value's placeholder ("K=V"), NULL for a switch */
  const char *help;  /* one paragraph, unwrapped: printed wrapped under the option */
};

struct cli_cmd {
  const char *name;     /* "run" */
  const char *summary;  /* one line for `foxopt --help` and the man page's NAME */
  const char *synopsis; /* after "usage: foxopt NAME ", lines broken by '\n' */
  const char *about;    /* what it does: paragraphs split by a blank line, pre-wrapped lines */
  const struct cli_opt *opts; /* ends with a row of NULLs */
  const char *after;    /* further paragraphs after the options, or NULL */
  const char *exits;    /* the exit codes, pre-wrapped, after "exit codes: " */
  const char *words;    /* the first argument's fixed words ("man bash zsh config-md"), or NULL */
  const char *const *set_keys; /* the key prefixes --set takes (NULL-terminated), NULL: all */
  int (*run)(int argc, char **argv, struct fox_err *e);
};

/* Every subcommand in the order `foxopt --help` lists them, ending with NULL. */
extern const struct cli_cmd *const cli_commands[];
const struct cli_cmd *cli_find(const char *name);
/* `foxopt CMD --help`: the synopsis, the texts and the options wrapped at 96 columns. */
void cli_usage(const struct cli_cmd *c, FILE *f);

/* A command line checked against its command's table before the command parses it:
 * --opt=value becomes --opt value, an unknown option is refused with the nearest known names,
 * a switch given a value and an option missing its value are refused, and -h/--help anywhere
 * outside an option's value is found. argv[0] is the command's name. */
struct cli_args {
  int argc, help;
  char **argv;
};
int cli_args(const struct cli_cmd *c, int argc, char **argv, struct cli_args *out,
             struct fox_err *e);
void cli_args_free(struct cli_args *a);


int cmd_synth(int argc, char **argv, struct fox_err *e);
int cmd_import(int argc, char **argv, struct fox_err *e);
int cmd_info(int argc, char **argv, struct fox_err *e);
int cmd_backtest(int argc, char **argv, struct fox_err *e);
int cmd_train(int argc, char **argv, struct fox_err *e);
int cmd_run(int argc, char **argv, struct fox_err *e);
int cmd_report(int argc, char **argv, struct fox_err *e);
int cmd_export(int argc, char **argv, struct fox_err *e);
int cmd_gen(int argc, char **argv, struct fox_err *e);
extern const struct cli_cmd cli_cmd_synth, cli_cmd_import, cli_cmd_info, cli_cmd_backtest,
    cli_cmd_train, cli_cmd_run, cli_cmd_report, cli_cmd_export, cli_cmd_gen;

/* Option helpers: the value after argv[*i] for flag `name`, advancing *i; NULL (and an error)
 * when the value is missing. */
const char *cli_value(int argc, char **argv, int *i, struct fox_err *e);
int cli_parse_i64(const char *flag, const char *s, long long lo, long long hi, long long *out,
                  struct fox_err *e);
int cli_parse_f64(const char *flag, const char *s, double lo, double hi, double *out,
                  struct fox_err *e);
int cli_is_help(const char *arg);
/* "2018-01-01 00:00" in UTC. */
void cli_format_time(long long ts, char *out, unsigned n);

#endif
