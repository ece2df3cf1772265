/* docs/config-keys.md: every config key with its default, the values it takes and what it
 * does, written from the config table (e2e_cli (tests/e2e/cli.sh) checks the committed file against
 * `foxopt gen config-md`, so the reference cannot drift from the parser). */
#include "cli/gen.h"

#include <string.h>

#include "config/config.h"

/* Markdown table cells: a '|' would end the cell. */
static void cell_(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '|')
      fputs("\\|", f);
    else
      fputc(*s, f);
  }
}

void gen_config_md(FILE *f) {
  fputs("# Config keys\n\n"
        "<!-- Written by `foxopt gen config-md` from the config table in src/config/config.c; "
        "do not edit by hand: e2e_cli compares it with the binary's. -->\n\n"
        "Every key a config file (YAML sections: `dqn: {lr: 1e-4}`) or `--set KEY=VALUE` "
        "takes, in the order `foxopt info` prints a config. A study's `parameters:` section "
        "searches over these keys ([studies.md](studies.md)). `man foxopt` lists "
        "the same.\n", f);
  const char *section = "";
  size_t slen = 0;
  for (int i = 0; i < config_key_count(); i++) {
    struct config_key_doc d;
    if (config_key_describe(i, &d) != 0)
      continue;
    size_t n = strcspn(d.key, ".");
    if (n != slen || strncmp(d.key, section, n) != 0) {
      fprintf(f, "\n## %.*s\n\n| key | default | values | what it does |\n|---|---|---|---|\n",
              (int)n, d.key);
      section = d.key;
      slen = n;
    }
    fprintf(f, "| `%s` | `", d.key);
    cell_(f, d.def);
    fputs("` | ", f);
    cell_(f, d.what);
    fputs(" | ", f);
    cell_(f, d.doc);
    fputs(" |\n", f);
  }
}
