/* What foxopt report says of a pbt study: the best member's schedule of parameters over the
 * generations (its lineage of segments, the exploits included) and what each generation cost
 * (its wall time, the state moves between ranks, the states saved and restored). */
#ifndef FOX_PBT_REPORT_H
#define FOX_PBT_REPORT_H

#include <stdio.h>

#include "study/study.h"
#include "util/json.h"

/* The lineage of study_best's row, oldest first, into ids (room for s->generations); its
 * length, 0 when the study has no complete row yet (or is not pbt). */
int pbt_report_lineage(const struct study *s, int *ids);
/* The schedule and the costs as fixed-width tables. */
void pbt_report_print(FILE *f, const struct study *s);
/* The same as the members "pbt_schedule": [...] and "pbt_generations": [...] of the JSON
 * object o; FOX_EFAIL in e when memory runs out. */
int pbt_report_json(json_t *o, const struct study *s, struct fox_err *e);

#endif
