/* A trial file's earlier versions (trials/ID.h5.eE, rankfile.c): a trial's next segment keeps
 * the file it replaces, rank 0 drops those study.h5 has moved past, and a resume's scrub puts
 * back the version the study recorded when a killed run left the trial's file a segment or two
 * ahead of study.h5 (instead of removing it and warning that its outputs are lost), keeps a
 * file the study recorded, and leaves no version behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "fox_check.h"
#include "study/rankfile.h"
#include "study/study.h"
#include "util/fsutil.h"

static char dir_[256];

static void put_(const struct study *s, int id, int epochs, double value) {
  struct fox_err e = {0};
  double x[FOX_SPACE_MAX] = {0};
  CHECK(rankfile_put_trial(dir_, 0, s, id, 0, x, epochs, NULL, value, NULL, &e) == 0, "put %d "
        "at %d: %s", id, epochs, e.msg);
}

static int exists_(const char *fmt, int a, int b) {
  char p[512], name[64];
  snprintf(name, sizeof name, fmt, a, b);
  snprintf(p, sizeof p, "%s/trials/%s", dir_, name);
  return fs_exists(p);
}

/* The epochs trial `id`'s file says it holds (-1: none). */
static int epochs_of_(int id) {
  char p[512];
  snprintf(p, sizeof p, "%s/trials/%d.h5", dir_, id);
  int v = -1;
  hid_t f = fs_exists(p) ? H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  if (f >= 0) {
    hid_t a = H5Aopen(f, "epochs", H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &v) < 0)
      v = -1;
    if (a >= 0)
      H5Aclose(a);
    H5Fclose(f);
  }
  return v;
}

int main(void) {
  snprintf(dir_, sizeof dir_, "/tmp/fox_versions_%ld", (long)getpid());
  mkdir(dir_, 0777);
  struct study s;
  memset(&s, 0, sizeof s);
  s.n = 3, s.repeats = 1;
  s.trials = calloc(3, sizeof *s.trials);
  struct study_rep reps[3];
  memset(reps, 0, sizeof reps);
  for (int i = 0; i < 3; i++)
    s.trials[i].id = i, s.trials[i].rep = &reps[i];
  /* trial 0: segments of 1, 3 and 9 epochs; trial 1: one of 1; trial 2: 1 then 3 */
  put_(&s, 0, 1, 0.1);
  CHECK(!exists_("%d.h5.e%d", 0, 1), "a first segment keeps nothing");
  put_(&s, 0, 3, 0.3);
  put_(&s, 0, 9, 0.9);
  put_(&s, 1, 1, 0.1);
  put_(&s, 2, 1, 0.1);
  put_(&s, 2, 3, 0.3);
  CHECK(exists_("%d.h5.e%d", 0, 1) && exists_("%d.h5.e%d", 0, 3) && exists_("%d.h5.e%d", 2, 1),
        "each replaced file is kept");
  /* study.h5 (as rank 0 wrote it) records trial 0 at 3 epochs, 1 at 1, 2 at 3 */
  s.trials[0].rep[0].epochs = 3, s.trials[1].rep[0].epochs = 1, s.trials[2].rep[0].epochs = 3;
  rankfile_drop_versions(dir_, &s);
  CHECK(!exists_("%d.h5.e%d", 0, 1) && exists_("%d.h5.e%d", 0, 3) && !exists_("%d.h5.e%d", 2, 1),
        "versions below what study.h5 records go, the recorded one stays");
  /* killed here, resumed: trial 0's file (9 epochs) is ahead of the study (3): its version of 3
   * is put back; trial 2's (3) is what the study records: kept */
  struct fox_err e = {0};
  CHECK(rankfile_scrub(dir_, &s, &e) == 0, "%s", e.msg);
  CHECK(epochs_of_(0) == 3, "trial 0: the recorded file is back (%d epochs)", epochs_of_(0));
  CHECK(epochs_of_(2) == 3 && epochs_of_(1) == 1, "the recorded files stay");
  CHECK(!exists_("%d.h5.e%d", 0, 3) && !exists_("%d.h5.e%d", 0, 9), "no version left");
  CHECK(rankfile_check(dir_, &s, stderr) == 0, "nothing lacks");
  /* without the version the study recorded, the file ahead of it goes and is named lacking */
  put_(&s, 2, 9, 0.9);
  char ver[512];
  snprintf(ver, sizeof ver, "%s/trials/2.h5.e3", dir_);
  remove(ver);
  CHECK(rankfile_scrub(dir_, &s, &e) == 0, "%s", e.msg);
  CHECK(rankfile_check(dir_, &s, stderr) == 1, "trial 2 lacks its file");
  /* a clean end drops every version */
  put_(&s, 1, 3, 0.3);
  rankfile_drop_versions(dir_, NULL);
  CHECK(!exists_("%d.h5.e%d", 1, 1), "a clean end leaves no version");
  /* a link planted under a version's name is not put in place */
  put_(&s, 1, 9, 0.9);
  char link_to[512], planted[512], one[512];
  snprintf(link_to, sizeof link_to, "%s/trials/0.h5", dir_); /* 3 epochs, whole */
  snprintf(planted, sizeof planted, "%s/trials/1.h5.e3", dir_);
  snprintf(one, sizeof one, "%s/trials/1.h5", dir_);
  remove(planted);
  CHECK(symlink(link_to, planted) == 0, "symlink");
  s.trials[1].rep[0].epochs = 3;
  CHECK(rankfile_scrub(dir_, &s, &e) == 0, "%s", e.msg);
  struct stat st;
  CHECK(lstat(one, &st) != 0, "trial 1 ahead and no real version: removed, the link unused");
  CHECK(epochs_of_(0) == 3, "the link's target untouched");
  /* a fresh start over a dead study takes its versions too (never this study's to restore) */
  put_(&s, 2, 1, 0.1);
  put_(&s, 2, 3, 0.3);
  CHECK(exists_("%d.h5.e%d", 2, 1), "a version to leave behind");
  CHECK(rankfile_remove_all(dir_, &e) == 0, "%s", e.msg);
  CHECK(!exists_("%d.h5.e%d", 2, 1) && !exists_("%d.h5", 2, 0), "a fresh start leaves none");
  free(s.trials);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir_);
  CHECK(system(cmd) == 0, "clean up");
  return fox_check_done("test_trial_versions");
}
