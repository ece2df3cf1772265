/* foxopt's JSON output through jansson: text that is not UTF-8, doubles that are not finite and
 * the check of every jansson call, in one place for every writer (report --json, the Optuna
 * journal, backtest --json, train --json). */
#ifndef FOX_JSON_H
#define FOX_JSON_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One code point of UTF-8 text at p: its length in bytes; a byte that starts no valid sequence
 * (overlong, surrogate, past U+10FFFF, cut short) is U+FFFD of length 1. */
int fox_utf8_next(const unsigned char *p, unsigned *cp);

/* s as a JSON string, each byte that starts no valid UTF-8 sequence as U+FFFD (jansson refuses
 * such text; a path or a name in another encoding still writes). NULL when memory runs out. */
json_t *fox_json_str(const char *s);
/* v as a JSON number, as printf's %.17g gives it: an integral value (|v| < 2^53) as an
 * integer (3, not 3.0), null when v is NaN or infinite (JSON has no such number). Dump with
 * JSON_REAL_PRECISION(17), which reads back to the same double. */
json_t *fox_json_num(double v);
/* v as Python's json module writes a float: a number with a point or an exponent, or NaN, Infinity, -Infinity, which json.loads
 * (Optuna's journal reader) takes and strict JSON does not. Only fox_json_dumps writes them. */
json_t *fox_json_pynum(double v);

/* o[key] = v, taking v (the key made UTF-8 as by fox_json_str). A NULL v (an allocation that
 * failed), a NULL o or a failed set records FOX_EFAIL in e (its first error only, as fox_errf)
 * and returns it, so that a writer builds its whole object and checks e->code once. */
int fox_json_set(json_t *o, const char *key, json_t *v, struct fox_err *e);
/* a += v, taking v; failures as fox_json_set. */
int fox_json_push(json_t *a, json_t *v, struct fox_err *e);

/* j's text as json_dumps(j, flags) writes it, fox_json_pynum's literals in place; NULL with e
 * set (naming `what`) when it fails. The caller frees it. */
char *fox_json_dumps(const json_t *j, size_t flags, const char *what, struct fox_err *e);
/* j's text and a newline to f, taking j. When e already holds an error (a failed build), j is
 * released, nothing is written and that error is returned. */
int fox_json_print(FILE *f, json_t *j, size_t flags, const char *what, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
