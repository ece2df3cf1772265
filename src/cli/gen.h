/* What `foxopt gen` writes from the command and config tables: man pages, shell completion and
 * the config-key reference (docs/config-keys.md). */
#ifndef FOX_GEN_H
#define FOX_GEN_H

#include <stdio.h>

#include "cli/cli.h"

void gen_man_main(FILE *f);
void gen_man_command(const struct cli_cmd *c, FILE *f);
void gen_bash(FILE *f);
void gen_zsh(FILE *f);
void gen_config_md(FILE *f);

#endif
