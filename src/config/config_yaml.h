/* A config's YAML text as a libyaml document: one document within the bounds of config.h
 * (size, nesting, values with aliases expanded), without a repeated key. libyaml's own
 * yaml_parser_load has no bounds, and a few hundred bytes of hostile YAML could exhaust the
 * stack, the memory or the clock. */
#ifndef FOX_CONFIG_YAML_H
#define FOX_CONFIG_YAML_H

#include <stddef.h>
#include <yaml.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Refuses a text longer than FOX_CONFIG_MAX_BYTES or holding a NUL byte, naming the line. */
int config_yaml_check(const char *text, size_t len, const char *name, struct fox_err *e);

/* Parses `len` bytes of `text` (named `name` in messages) into `doc`, which the caller deletes
 * with yaml_document_delete on success; nothing to delete on failure. An empty text is an
 * empty document (no root node). FOX_EUSAGE with NAME:LINE[:COLUMN] on any refusal,
 * FOX_EFAIL when memory runs out. */
int config_yaml_load(yaml_document_t *doc, const char *text, size_t len, const char *name,
                     struct fox_err *e);

/* The 1-based line and column (in characters) of byte `off` of `text`. */
void config_yaml_position(const char *text, size_t off, size_t *line, size_t *col);

#ifdef __cplusplus
}
#endif

#endif
