/* Population-based training (Jaderberg et al. 2017) as a study scheduler (DESIGN.md s8):
 * study.scheduler.population members train in synchronous generations of `interval` epochs;
 * at each generation's end the bottom quantile (and every failed member) copies the state of a
 * top member drawn from the study's random stream and explores its parameters. Every
 * (member, generation) segment is a row of the study; ids are generation * population +
 * member, so the table is a pure function of the config and the results, whatever runs it. */
#ifndef FOX_PBT_H
#define FOX_PBT_H

#include <stdint.h>

#include "study/study.h"

/* study_next_work for a pbt study. */
int pbt_next_work(struct study *s, struct work_item *items, int *n, struct fox_err *e);
/* Members in the top and bottom quantile of n: ceil(n q), at most floor(n / 2) (Ray Tune's
 * rule). */
int pbt_quantile_size(int n, double q);
/* The exploit decision over n members with losses (lower is better; NaN: failed): donor[i] =
 * the member i copies (one of the top quantile, drawn from `seed`), -1 when it keeps its own.
 * Every failed member copies; ties rank the lower index first. Returns the number of healthy
 * members (0: nobody to copy from, every donor -1). */
int pbt_exploit(const double *loss, int n, double q, uint64_t seed, int *donor);
/* Explore: x from `from` with each searched active parameter resampled with
 * resample_probability, else multiplied by one of the factors (integers rounded; a log
 * parameter so moves in log space) and clamped to its range, a categorical one moved to a
 * neighbouring choice. */
void pbt_explore(const struct study_config *sc, const struct space *sp, const double *from,
                 uint64_t seed, double *x);
/* Adds a step's costs to its generation's (s->gen): rank 0's planning and wall time, the
 * state moves (count, bytes, the slowest rank's seconds) and the segments' own times. */
void pbt_account(struct study *s, const struct work_item *items, int n,
                 const struct work_result *res, double plan, double wall, int moves,
                 double bytes, double move_seconds);
/* The rows of the best member's lineage, oldest first, ending at row `last`: into ids (room
 * for s->generations); returns how many. */
int pbt_lineage(const struct study *s, int last, int *ids);

#endif
