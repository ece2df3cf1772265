/* The subcommands of DESIGN.md s3. Each returns a status (util/error.h) and prints its own
 * results; main() prints the error message and turns the status into the exit code. */
#ifndef FOX_CLI_H
#define FOX_CLI_H

#include "util/error.h"

int cmd_synth(int argc, char **argv, struct fox_err *e);
int cmd_import(int argc, char **argv, struct fox_err *e);
int cmd_info(int argc, char **argv, struct fox_err *e);
int cmd_backtest(int argc, char **argv, struct fox_err *e);
int cmd_train(int argc, char **argv, struct fox_err *e);
int cmd_run(int argc, char **argv, struct fox_err *e);
int cmd_report(int argc, char **argv, struct fox_err *e);
int cmd_export(int argc, char **argv, struct fox_err *e);

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
