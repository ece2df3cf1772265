/* A trial trained on its own: a population of one (train/pop.h), so that a trial alone and a
 * population's member take the one training path. */
#include "train/solo.h"

#include "train/pop.h"

/* A trial alone is a population of one: the one training path. */
int trial_advance(struct trial *t, int to_epoch, FILE *log, const volatile sig_atomic_t *stop,
                  struct fox_err *e) {
  if (to_epoch > t->cfg.epochs)
    to_epoch = t->cfg.epochs;
  if (t->r.epochs_done >= to_epoch || t->r.status != FOX_TRIAL_COMPLETE)
    return 0;
  struct pop p;
  pop_init(&p, t->be, 1);
  int rc = pop_add(&p, t, e);
  while (rc == 0 && t->r.epochs_done < to_epoch && t->r.status == FOX_TRIAL_COMPLETE) {
    double seconds;
    rc = pop_train_epoch(&p, stop, &seconds, e);
    if (rc == 0)
      rc = trial_epoch_end(t, seconds, log, e);
  }
  pop_free(&p);
  return rc;
}

int trial_run(struct trial *t, const struct config *cfg, const struct dataset *ds,
              const struct backend *be, const struct device_dataset *dev, FILE *log,
              struct fox_err *e) {
  FOX_TRY(trial_open(t, cfg, ds, be, dev, e));
  return trial_advance(t, cfg->epochs, log, NULL, e);
}
