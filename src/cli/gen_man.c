/* foxopt's man pages in roff (man(7) macros), written from the command tables of src/cli and
 * the config table, so that `foxopt CMD --help`, the pages and the parser cannot disagree. */
#include "cli/gen.h"

#include <string.h>

#include "config/config.h"

/* Text for roff: a backslash as \e, a minus as \- (so that options read and search as ASCII),
 * and a line that would start with a control character ('.' or ') behind \&. */
static void put_(FILE *f, const char *s, size_t n) {
  for (size_t i = 0; i < n && s[i]; i++) {
    char c = s[i];
    if ((i == 0 || s[i - 1] == '\n') && (c == '.' || c == '\''))
      fputs("\\&", f);
    if (c == '\\')
      fputs("\\e", f);
    else if (c == '-')
      fputs("\\-", f);
    else
      fputc(c, f);
  }
}

static void puts_(FILE *f, const char *s) { put_(f, s, strlen(s)); }

/* A pre-wrapped text: runs of lines at the margin are filled by the formatter, runs of
 * indented lines (tables, code) are kept as they are, and a blank line starts a paragraph. */
static void text_(FILE *f, const char *text) {
  int verbatim = 0;
  fputs(".PP\n", f);
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    int blank = n == 0, indented = p[0] == ' ';
    if (blank) {
      if (verbatim)
        fputs(".fi\n", f);
      verbatim = 0;
      fputs(".PP\n", f);
    } else {
      if (indented && !verbatim)
        fputs(".nf\n", f);
      else if (!indented && verbatim)
        fputs(".fi\n", f);
      verbatim = indented;
      put_(f, p, n);
      fputc('\n', f);
    }
    p += n + (p[n] == '\n');
  }
  if (verbatim)
    fputs(".fi\n", f);
}

/* The exit codes' text is wrapped for a terminal under "exit codes: ": one line here. */
static void exits_(FILE *f, const char *exits) {
  fputs(".SH EXIT STATUS\n", f);
  for (const char *p = exits; *p; p++) {
    while (*p == '\n' || (*p == ' ' && (p == exits || p[-1] == '\n' || p[-1] == ' ')))
      p++;
    if (!*p)
      break;
    put_(f, p, 1);
    if (p[1] == '\n')
      fputc(' ', f);
  }
  fputc('\n', f);
}

static void header_(FILE *f, const char *page, const char *name, const char *summary) {
  char upper[64];
  size_t i = 0;
  for (; page[i] && i + 1 < sizeof upper; i++)
    upper[i] = (char)(page[i] >= 'a' && page[i] <= 'z' ? page[i] - 32 : page[i]);
  upper[i] = '\0';
  fprintf(f, ".\\\" Written by `foxopt gen man` from foxopt's option and config tables.\n");
  /* .nh: no hyphenation, so that option and key names stay whole (and searchable); .ad l: no
   * justification, whose gaps a long name would stretch. */
  fprintf(f, ".TH %s 1 \"\" \"foxopt %s\" \"foxopt manual\"\n.nh\n.ad l\n.SH NAME\n", upper,
          FOXOPT_VERSION);
  puts_(f, name);
  fputs(" \\- ", f);
  puts_(f, summary);
  fputc('\n', f);
}

void gen_man_command(const struct cli_cmd *c, FILE *f) {
  char page[64];
  snprintf(page, sizeof page, "foxopt-%s", c->name);
  header_(f, page, page, c->summary);
  fprintf(f, ".SH SYNOPSIS\n.nf\n\\fBfoxopt %s\\fR ", c->name);
  int pad = (int)strlen(c->name) + 8;
  for (const char *p = c->synopsis; *p;) {
    size_t n = strcspn(p, "\n");
    put_(f, p, n);
    fputc('\n', f);
    p += n;
    if (*p == '\n' && *++p)
      fprintf(f, "%*s", pad, "");
  }
  fputs(".fi\n.SH DESCRIPTION\n", f);
  text_(f, c->about);
  if (c->opts[0].name) {
    fputs(".SH OPTIONS\n", f);
    for (const struct cli_opt *o = c->opts; o->name; o++) {
      fputs(".TP\n\\fB", f);
      puts_(f, o->name);
      fputs("\\fR", f);
      if (o->arg) {
        fputs(" \\fI", f);
        puts_(f, o->arg);
        fputs("\\fR", f);
      }
      fputc('\n', f);
      puts_(f, o->help);
      fputc('\n', f);
    }
    for (const struct cli_opt *o = c->opts; o->name; o++)
      if (o->arg) { /* an example from this command's own options */
        fputs(".PP\nAn option's value may follow it as the next argument or after '=' (\\fB", f);
        puts_(f, o->name);
        fputs(" ", f);
        puts_(f, o->arg);
        fputs("\\fR or \\fB", f);
        puts_(f, o->name);
        fputs("=", f);
        puts_(f, o->arg);
        fputs("\\fR).\n", f);
        break;
      }
  }
  if (c->after) {
    fputs(".SH NOTES\n", f);
    text_(f, c->after);
  }
  exits_(f, c->exits);
  fputs(".SH SEE ALSO\n\\fBfoxopt\\fR(1)", f);
  for (int i = 0; cli_commands[i]; i++)
    if (cli_commands[i] != c)
      fprintf(f, ", \\fBfoxopt\\-%s\\fR(1)", cli_commands[i]->name);
  fputc('\n', f);
}

/* foxopt(1): the commands, then every config key with its default, its values and what it
 * does. */
void gen_man_main(FILE *f) {
  header_(f, "foxopt", "foxopt", "hyperparameter optimisation for reinforcement-learning trading "
                                 "agents");
  fputs(".SH SYNOPSIS\n.nf\n\\fBfoxopt\\fR \\fICOMMAND\\fR [\\fIARGS\\fR]\n"
        "\\fBfoxopt help\\fR \\fICOMMAND\\fR\n\\fBfoxopt\\fR \\-V | \\-\\-version\n.fi\n"
        ".SH DESCRIPTION\n"
        "foxopt imports OHLCV bars into a dataset with 51 features, simulates a long-only market "
        "with spread, fees and triple-barrier exits, trains DQN and PPO agents on many parallel "
        "environments (on the CPU, a GPU, or the GPUs of an MPI job), backtests them on held-out "
        "bars, and searches their hyperparameters (TPE, random, grid, NSGA-II; successive "
        "halving, Hyperband, PBT), with the statistics that say how much of the best result is "
        "luck.\n.PP\n"
        "\\fBfoxopt help\\fR \\fICOMMAND\\fR and \\fBfoxopt\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR "
        "print a command's options; each has its page, \\fBfoxopt\\-\\fR\\fICOMMAND\\fR(1).\n"
        ".SH COMMANDS\n", f);
  for (int i = 0; cli_commands[i]; i++) {
    fprintf(f, ".TP\n\\fB%s\\fR\n", cli_commands[i]->name);
    puts_(f, cli_commands[i]->summary);
    fprintf(f, " (\\fBfoxopt\\-%s\\fR(1))\n", cli_commands[i]->name);
  }
  fputs(".SH CONFIGURATION\n"
        "A config file is YAML: sections of keys (\\fBdqn: {lr: 1e\\-4}\\fR); \\fB\\-\\-set "
        "KEY=VALUE\\fR overrides one key; a study's `parameters:` section searches over keys. "
        "Every key, with its default:\n", f);
  for (int i = 0; i < config_key_count(); i++) {
    struct config_key_doc d;
    if (config_key_describe(i, &d) != 0)
      continue;
    fputs(".TP\n\\fB", f);
    puts_(f, d.key);
    fputs("\\fR (default \\fB", f);
    puts_(f, d.def);
    fputs("\\fR)\n", f);
    puts_(f, d.doc);
    fputs(d.doc[0] ? " Expects " : "Expects ", f);
    puts_(f, d.what);
    fputs(".\n", f);
  }
  fputs(".SH FILES\n"
        ".TP\n\\fIPREFIX/share/foxopt/configs/\\fR\nexample configs (demo.yaml, trial.yaml, "
        "pbt.yaml, cluster.yaml, l4\\-5trials.yaml)\n"
        ".TP\n\\fIPREFIX/share/foxopt/slurm/\\fR\nsbatch scripts for CPU nodes, GPU nodes and "
        "job arrays\n"
        ".TP\n\\fIPREFIX/share/doc/foxopt/\\fR\nthe guide (README.md) and the reference (docs/)\n", f);
  exits_(f, "0 ok; 1 other failure; 2 bad usage or config; 3 bad input data or file; 75 "
            "stopped by SIGTERM/SIGUSR1 or study.timeout after a clean checkpoint (run again with "
            "--resume)");
  fputs(".SH SEE ALSO\n", f);
  for (int i = 0; cli_commands[i]; i++)
    fprintf(f, "%s\\fBfoxopt\\-%s\\fR(1)", i ? ", " : "", cli_commands[i]->name);
  fputs(", \\fBmpirun\\fR(1), \\fBsbatch\\fR(1)\n", f);
}
