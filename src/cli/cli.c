/* Shared option parsing for the subcommands: strict numbers, named flags in every message. */
#include "cli/cli.h"
#include "util/nearest.h"
#include "util/number.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

const char *cli_value(int argc, char **argv, int *i, struct fox_err *e) {
  if (*i + 1 >= argc) {
    fox_errf(e, FOX_EUSAGE, "%s needs a value", argv[*i]);
    return NULL;
  }
  *i += 1;
  return argv[*i];
}

int cli_parse_i64(const char *flag, const char *s, long long lo, long long hi, long long *out,
                  struct fox_err *e) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end != '\0')
    return fox_errf(e, FOX_EUSAGE, "%s '%s': expected an integer", flag, s);
  if (v < lo || v > hi)
    return fox_errf(e, FOX_EUSAGE, "%s %lld: expected a value in [%lld, %lld]", flag, v, lo, hi);
  *out = v;
  return 0;
}

int cli_parse_f64(const char *flag, const char *s, double lo, double hi, double *out,
                  struct fox_err *e) {
  double v;
  if (number_parse(s, &v) != 0)
    return fox_errf(e, FOX_EUSAGE, "%s '%s': expected a decimal number", flag, s);
  if (v < lo || v > hi)
    return fox_errf(e, FOX_EUSAGE, "%s %g: expected a value in [%g, %g]", flag, v, lo, hi);
  *out = v;
  return 0;
}

int cli_is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

void cli_format_time(long long ts, char *out, unsigned n) {
  time_t t = (time_t)ts;
  struct tm tm;
  if (gmtime_r(&t, &tm) == NULL || strftime(out, n, "%Y-%m-%d %H:%M", &tm) == 0)
    snprintf(out, n, "%lld", ts);
}

const struct cli_cmd *const cli_commands[] = {
    &cli_cmd_synth, &cli_cmd_import, &cli_cmd_info,   &cli_cmd_train, &cli_cmd_backtest,
    &cli_cmd_run,   &cli_cmd_report, &cli_cmd_export, &cli_cmd_gen,   NULL};

const struct cli_cmd *cli_find(const char *name) {
  for (int i = 0; cli_commands[i]; i++)
    if (strcmp(cli_commands[i]->name, name) == 0)
      return cli_commands[i];
  return NULL;
}

/* `text` from column `col` on, words wrapped before column `width`, continuation lines
 * indented by `indent`. */
static void wrap_(FILE *f, const char *text, int col, int indent, int width) {
  const char *p = text;
  while (*p) {
    while (*p == ' ')
      p++;
    size_t n = strcspn(p, " ");
    if (!n)
      break;
    if (col > indent && col + 1 + (int)n > width) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc(' ', f);
      col++;
    }
    fwrite(p, 1, n, f);
    col += (int)n;
    p += n;
  }
  fputc('\n', f);
}

void cli_usage(const struct cli_cmd *c, FILE *f) {
  fprintf(f, "usage: foxopt %s ", c->name);
  /* The synopsis's later lines line up under its first argument. */
  int pad = (int)strlen(c->name) + 15;
  for (const char *p = c->synopsis; *p;) {
    size_t n = strcspn(p, "\n");
    fprintf(f, "%.*s\n", (int)n, p);
    p += n;
    if (*p == '\n' && *++p)
      fprintf(f, "%*s", pad, "");
  }
  fprintf(f, "\n%s\n", c->about);
  if (c->opts[0].name) {
    fputc('\n', f);
    for (const struct cli_opt *o = c->opts; o->name; o++) {
      char head[64];
      snprintf(head, sizeof head, "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
      int col = (int)strlen(head);
      fputs(head, f);
      if (col > 19) {
        fputs("\n", f);
        col = 0;
      }
      fprintf(f, "%*s", 21 - col, "");
      wrap_(f, o->help, 21, 21, 96);
    }
  }
  if (c->after)
    fprintf(f, "\n%s\n", c->after);
  fprintf(f, "\nexit codes: %s\n", c->exits);
}

static const struct cli_opt *opt_find_(const struct cli_cmd *c, const char *name, size_t n) {
  for (const struct cli_opt *o = c->opts; o->name; o++)
    if (strlen(o->name) == n && strncmp(o->name, name, n) == 0)
      return o;
  return NULL;
}

static int unknown_opt_(const struct cli_cmd *c, const char *s, size_t n, struct fox_err *e) {
  const char *names[64];
  int k = 0;
  for (const struct cli_opt *o = c->opts; o->name && k < 62; o++)
    names[k++] = o->name;
  names[k++] = "--help";
  char word[128], near[400];
  snprintf(word, sizeof word, "%.*s", (int)(n < 100 ? n : 100), s);
  nearest_names(word, names, k, near, sizeof near);
  return fox_errf(e, FOX_EUSAGE, "unknown option '%s'%s%s (foxopt help %s lists them)", word,
                  near[0] ? ": " : "", near, c->name);
}

/* A lone "-" (standard input) and negative numbers are arguments, not options. */
static int is_option_(const char *s) {
  return s[0] == '-' && s[1] != '\0' && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.';
}

int cli_args(const struct cli_cmd *c, int argc, char **argv, struct cli_args *out,
             struct fox_err *e) {
  memset(out, 0, sizeof *out);
  /* At most twice as many words (each --opt=value split), and the copies of the names. */
  size_t bytes = 0;
  for (int i = 0; i < argc; i++)
    bytes += strlen(argv[i]) + 1;
  char **v = malloc(sizeof *v * (2 * (size_t)argc + 1) + bytes);
  if (!v)
    return fox_errf(e, FOX_EFAIL, "out of memory");
  char *store = (char *)(v + 2 * argc + 1);
  int n = 0;
  v[n++] = argv[0];
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (!is_option_(s)) {
      if (!s[0]) { /* "" reads as the current directory or no file at all, per call */
        free(v);
        return fox_errf(e, FOX_EUSAGE, "an empty argument (expected %.*s)",
                        (int)strcspn(c->synopsis, "\n"), c->synopsis);
      }
      v[n++] = argv[i];
      continue;
    }
    if (strcmp(s, "--") == 0) {
      free(v);
      return fox_errf(e, FOX_EUSAGE, "'--' is not taken: name a file whose name starts with '-' "
                                     "as ./-NAME");
    }
    const char *eq = strchr(s, '='); /* --opt=value, and -o=value as well */
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    if (len == 2 ? strncmp(s, "-h", 2) == 0 : len == 6 && strncmp(s, "--help", 6) == 0) {
      if (eq) {
        free(v);
        return fox_errf(e, FOX_EUSAGE, "%.*s takes no value (given '%s')", (int)len, s, eq + 1);
      }
      out->help = 1;
      v[n++] = argv[i];
      continue;
    }
    const struct cli_opt *o = opt_find_(c, s, len);
    if (!o) {
      free(v);
      return unknown_opt_(c, s, len, e);
    }
    if (!o->arg && eq) {
      free(v);
      return fox_errf(e, FOX_EUSAGE, "%s takes no value (given '%s')", o->name, eq + 1);
    }
    if (o->arg && eq && eq[1] == '\0') {
      free(v);
      return fox_errf(e, FOX_EUSAGE, "%s= needs a value (%s)", o->name, o->arg);
    }
    v[n++] = (char *)o->name;
    if (eq) {
      strcpy(store, eq + 1);
      v[n++] = store;
      store += strlen(store) + 1;
    } else if (o->arg) {
      if (i + 1 >= argc) {
        free(v);
        return fox_errf(e, FOX_EUSAGE, "%s needs a value (%s)", o->name, o->arg);
      }
      if (!argv[i + 1][0]) {
        free(v);
        return fox_errf(e, FOX_EUSAGE, "%s needs a value (%s), not an empty one", o->name,
                        o->arg);
      }
      v[n++] = argv[++i]; /* the value, even where it starts with '-' */
    }
  }
  v[n] = NULL;
  out->argc = n;
  out->argv = v;
  return 0;
}

void cli_args_free(struct cli_args *a) {
  free(a->argv);
  a->argv = NULL;
}
