/* Shell completion for bash and zsh, written from the command tables and the config table:
 * subcommands, each command's options, config keys after --set (and a choice key's values
 * after KEY=), the backends after --backend, and file names elsewhere. */
#include "cli/gen.h"

#include <string.h>

#include "config/config.h"

/* The words of a shell list, single-quoted where needed (none of ours has a quote). */
static void keys_(FILE *f, const char *suffix) {
  for (int i = 0; i < config_key_count(); i++) {
    struct config_key_doc d;
    if (config_key_describe(i, &d) == 0)
      fprintf(f, "%s%s%s", i ? " " : "", d.key, suffix);
  }
}

/* Values after KEY=: a choice key's names, true/false for a switch. */
static void values_case_(FILE *f, const char *indent, const char *open, const char *close) {
  for (int i = 0; i < config_key_count(); i++) {
    struct config_key_doc d;
    if (config_key_describe(i, &d) != 0 || (d.kind != FOX_KEY_CHOICE && d.kind != FOX_KEY_BOOL))
      continue;
    fprintf(f, "%s%s) %s", indent, d.key, open);
    if (d.kind == FOX_KEY_BOOL)
      fputs("true false", f);
    else
      for (int k = 0; d.choices && d.choices[k]; k++)
        fprintf(f, "%s%s", k ? " " : "", d.choices[k]);
    fprintf(f, "%s ;;\n", close);
  }
}

static int takes_file_(const struct cli_opt *o) {
  return strcmp(o->name, "-o") == 0 || strchr(o->arg, '.') != NULL || strcmp(o->arg, "FILE") == 0 ||
         strcmp(o->arg, "OUTDIR") == 0;
}

/* The keys --set takes under command c, space-separated. */
static void cmd_keys_(FILE *f, const struct cli_cmd *c) {
  int k = 0;
  for (int i = 0; i < config_key_count(); i++) {
    struct config_key_doc d;
    if (config_key_describe(i, &d) != 0)
      continue;
    int ok = !c->set_keys;
    for (const char *const *p = c->set_keys; p && *p && !ok; p++)
      ok = strncmp(d.key, *p, strlen(*p)) == 0;
    if (ok)
      fprintf(f, "%s%s", k++ ? " " : "", d.key);
  }
}

static int has_opt_(const struct cli_cmd *c, const char *name) {
  for (const struct cli_opt *o = c->opts; o->name; o++)
    if (strcmp(o->name, name) == 0)
      return 1;
  return 0;
}

void gen_bash(FILE *f) {
  fputs("# bash completion for foxopt; written by `foxopt gen bash` from its option and config\n"
        "# tables.\n_foxopt() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmds\n"
        "  cmds=\"", f);
  for (int i = 0; cli_commands[i]; i++)
    fprintf(f, "%s ", cli_commands[i]->name);
  fputs("help\"\n"
        "  COMPREPLY=()\n"
        "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        "    COMPREPLY=($(compgen -W \"$cmds -h --help -V --version\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  local cmd=${COMP_WORDS[1]}\n"
        "  if [ \"$cmd\" = help ]; then\n"
        "    [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  # The command's options, the ones whose value is a number or a name, the keys its --set\n"
        "  # takes, its backends and the fixed words of its first argument.\n"
        "  local opts= valued= keys= backends= words=\n"
        "  case $cmd in\n", f);
  for (int i = 0; cli_commands[i]; i++) {
    const struct cli_cmd *c = cli_commands[i];
    fprintf(f, "    %s)\n      opts=\"--help", c->name);
    for (const struct cli_opt *o = c->opts; o->name; o++)
      fprintf(f, " %s", o->name);
    fputs("\"\n      valued=\"", f);
    int k = 0;
    for (const struct cli_opt *o = c->opts; o->name; o++)
      if (o->arg && !takes_file_(o))
        fprintf(f, "%s%s", k++ ? " " : "", o->name);
    fputs("\"\n", f);
    if (has_opt_(c, "--set")) {
      fputs("      keys=\"", f);
      cmd_keys_(f, c);
      fputs("\"\n", f);
    }
    if (has_opt_(c, "--backend"))
      fputs("      backends=\"auto cpu cuda\"\n", f);
    if (c->words)
      fprintf(f, "      words=\"%s\"\n", c->words);
    fputs("      ;;\n", f);
  }
  fputs("    *) return ;;\n"
        "  esac\n"
        "  # bash splits --set KEY=VALUE at '=': a value after KEY = is one of the key's.\n"
        "  local key=\n"
        "  if [ \"$COMP_CWORD\" -ge 4 ] && [ \"${COMP_WORDS[COMP_CWORD-3]}\" = --set ] &&\n"
        "     [ \"$prev\" = \"=\" ]; then\n"
        "    key=${COMP_WORDS[COMP_CWORD-2]}\n"
        "  elif [ \"$cur\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 3 ] &&\n"
        "       [ \"${COMP_WORDS[COMP_CWORD-2]}\" = --set ]; then\n"
        "    key=$prev cur=\n"
        "  fi\n"
        "  if [ -n \"$key\" ]; then\n"
        "    local vals=\n"
        "    case $key in\n", f);
  values_case_(f, "      ", "vals=\"", "\"");
  fputs("    esac\n"
        "    COMPREPLY=($(compgen -W \"$vals\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  # --set=KEY: bash gives --set, = and the key's start as three words.\n"
        "  if [ \"$prev\" = \"=\" ] && [ \"${COMP_WORDS[COMP_CWORD-2]}\" = --set ]; then\n"
        "    prev=--set\n"
        "  elif [ \"$cur\" = \"=\" ] && [ \"$prev\" = --set ]; then\n"
        "    cur=\n"
        "  fi\n"
        "  case $prev in\n"
        "    --set)\n"
        "      compopt -o nospace 2>/dev/null\n"
        "      COMPREPLY=($(compgen -W \"$keys\" -S = -- \"$cur\"))\n"
        "      return ;;\n"
        "    --backend) COMPREPLY=($(compgen -W \"$backends\" -- \"$cur\")); return ;;\n"
        "    --split) [ \"$cmd\" = backtest ] && COMPREPLY=($(compgen -W \"val test train\" -- "
        "\"$cur\")); return ;;\n"
        "  esac\n"
        "  # An option whose value is a number or a name: nothing to offer.\n"
        "  case \" $valued \" in *\" $prev \"*) return ;; esac\n"
        "  if [[ $cur == -* ]]; then\n"
        "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  if [ -n \"$words\" ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
        "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  # Files and directories (configs, datasets, OUTDIRs).\n"
        "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "}\n"
        "complete -o filenames -F _foxopt foxopt\n", f);
}

/* A description inside a single-quoted zsh word: at most ~70 characters cut at a blank, ':'
 * and brackets escaped for _describe and _arguments, a quote closed and reopened. */
static void zdesc_(FILE *f, const char *s) {
  size_t n = strlen(s);
  if (n > 70) {
    n = 70;
    while (n > 40 && s[n] != ' ')
      n--;
  }
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '\'')
      fputs("'\\''", f);
    else if (c == ':' || c == '[' || c == ']' || c == '\\')
      fprintf(f, "\\%c", c);
    else
      fputc(c, f);
  }
}

void gen_zsh(FILE *f) {
  fputs("#compdef foxopt\n# zsh completion for foxopt; written by `foxopt gen zsh` from its "
        "option and config tables.\n\n_foxopt_keys() {\n  local -a keys\n  keys=(", f);
  keys_(f, "");
  fputs(")\n  # The prefixes a command's --set takes, as arguments (backtest: market. barrier. output.).\n"
        "  if (( $# )); then\n    local -a sel\n    local p\n"
        "    for p in \"$@\"; do sel+=(${(M)keys:#${p}*}); done\n    keys=($sel)\n  fi\n"
        "  if [[ $PREFIX == *=* ]]; then\n    local key=${PREFIX%%=*} vals=\n"
        "    case $key in\n", f);
  values_case_(f, "      ", "vals=\"", "\"");
  fputs("    esac\n    compset -P '*='\n    compadd -- ${=vals}\n  else\n"
        "    compadd -S = -- $keys\n  fi\n}\n\n_foxopt() {\n  local -a cmds\n  cmds=(\n", f);
  for (int i = 0; cli_commands[i]; i++) {
    fprintf(f, "    '%s:", cli_commands[i]->name);
    zdesc_(f, cli_commands[i]->summary);
    fputs("'\n", f);
  }
  fputs("    'help:the options of a command'\n  )\n"
        "  if (( CURRENT == 2 )); then\n    _describe -t commands 'foxopt command' cmds\n"
        "    compadd -- -h --help -V --version\n"
        "    return\n  fi\n  local cmd=$words[2]\n  shift words\n  (( CURRENT-- ))\n"
        "  case $cmd in\n    help) _describe -t commands 'foxopt command' cmds ;;\n", f);
  for (int i = 0; cli_commands[i]; i++) {
    const struct cli_cmd *c = cli_commands[i];
    fprintf(f, "    %s) _arguments \\\n      '(- *)'{-h,--help}'[the options of this command]' \\\n",
            c->name);
    for (const struct cli_opt *o = c->opts; o->name; o++) {
      int many = strcmp(o->name, "--set") == 0;
      fprintf(f, "      '%s%s[", many ? "*" : "", o->name);
      zdesc_(f, o->help);
      fputc(']', f);
      if (o->arg) {
        fputc(':', f);
        zdesc_(f, o->arg);
        if (many) {
          fputs(":_foxopt_keys", f);
          for (const char *const *p = c->set_keys; p && *p; p++)
            fprintf(f, " %s", *p);
        }
        else if (strcmp(o->name, "--backend") == 0)
          fputs(":(auto cpu cuda)", f);
        else if (takes_file_(o))
          fputs(":_files", f);
        else
          fputs(": ", f);
      }
      fputs("' \\\n", f);
    }
    if (c->words)
      fprintf(f, "      '1:what:(%s)' \\\n      '*:file:_files' ;;\n", c->words);
    else
      fputs("      '*:file:_files' ;;\n", f);
  }
  fputs("  esac\n}\n\n_foxopt \"$@\"\n", f);
}
