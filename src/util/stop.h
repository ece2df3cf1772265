/* The stop request of SIGTERM / SIGUSR1 (SLURM preemption): a flag the work loops poll, so that
 * a study stops at a safe point, writes its checkpoint and exits 75. */
#ifndef FOX_STOP_H
#define FOX_STOP_H

#include <signal.h>

/* Installs the handlers (SA_RESTART, so blocking calls resume) and returns the flag. */
const volatile sig_atomic_t *stop_install(void);
/* The signal that set the flag (0 when none). */
int stop_signal(void);
/* Sets it by hand (another rank asked to stop). */
void stop_request(int sig);

#endif
