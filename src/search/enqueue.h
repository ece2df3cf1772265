/* The `enqueue:` section of a study's config: parameter sets its first trials take, in order,
 * instead of the sampler's proposals (Optuna's enqueue_trial). */
#ifndef FOX_ENQUEUE_H
#define FOX_ENQUEUE_H

#include "search/space.h"
#include "util/error.h"

#define FOX_ENQUEUE_MAX 1000

struct enqueue {
  int n;
  double (*x)[FOX_SPACE_MAX]; /* [n] points: NaN where a parameter is inactive */
};

/* Reads `enqueue:` from YAML text (none, or nothing under it: n 0) against the study's space:
 * FOX_EUSAGE naming FILE:LINE, the set and the key for an unknown key, a value its distribution
 * cannot take, an active parameter left out (a fixed one may be: its value) or an inactive one
 * given. */
int enqueue_load_text(struct enqueue *q, const struct space *sp, const char *text,
                      const char *name, struct fox_err *e);
void enqueue_free(struct enqueue *q);

#endif
