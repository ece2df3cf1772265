/* The temporaries this process is writing (NAME.tmp.PID, fs_temp_name), taken away when SIGINT,
 * SIGTERM or SIGHUP ends it: a Ctrl-C on import or synth left hundreds of MB behind for good. */
#ifndef FOX_UTIL_TEMPS_H
#define FOX_UTIL_TEMPS_H

/* Handlers for SIGINT, SIGTERM and SIGHUP that remove the temporaries and then end the process
 * as the signal would; a signal that already has a handler keeps it (run's SIGTERM stops at
 * the next step, util/stop.c, and a resume removes what a killed run left). */
void temps_install(void);
/* A temporary about to be written, and one renamed or removed: the handlers remove what is
 * between the two. Past 64 at once, the rest are not removed by a signal. */
void temps_add(const char *tmp);
void temps_drop(const char *tmp);

#endif
