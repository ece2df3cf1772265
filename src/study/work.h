/* The work of each step of a study (work.c). */
#ifndef FOX_STUDY_WORK_H
#define FOX_STUDY_WORK_H

#include "study/study.h"

/* The work of the current step: the segments still to run at the current rung of the open
 * round, after making any decision that is due and proposing a new round when the last one is
 * done (pbt: its generation's segments). *n = 0 when the study is finished. `items` has room
 * for study_max_items(s). */
int study_next_work(struct study *s, struct work_item *items, int *n, struct fox_err *e);

#endif
