/* Device counters (backend/counters.h): each thread's counts are its own and start again after a
 * take; the peak of device memory follows allocations and releases by pointer, with 2 MiB-
 * aligned pointers (which a weak hash would pile on one slot) and millions of allocate/free
 * pairs (which used to grow the table without end: time and memory stay small). */
#include <pthread.h>
#include <stdio.h>

#include "backend/counters.h"
#include "fox_check.h"

static void *other_(void *arg) {
  counters_launch();
  counters_h2d(5);
  *(struct backend_counts *)arg = counters_take();
  return NULL;
}

int main(void) {
  counters_take();
  counters_launch();
  counters_launch();
  counters_sync();
  counters_h2d(100);
  counters_d2h(7);
  pthread_t t;
  struct backend_counts theirs;
  CHECK(pthread_create(&t, NULL, other_, &theirs) == 0 && pthread_join(t, NULL) == 0, "thread");
  struct backend_counts mine = counters_take(), again = counters_take();
  CHECK(mine.launches == 2 && mine.syncs == 1 && mine.h2d_bytes == 100 && mine.d2h_bytes == 7,
        "this thread's counts");
  CHECK(theirs.launches == 1 && theirs.h2d_bytes == 5 && theirs.syncs == 0, "the other's");
  CHECK(again.launches == 0 && again.h2d_bytes == 0, "a take starts again from 0");
  struct backend_counts sum = {0};
  counters_add(&sum, &mine);
  counters_add(&sum, &theirs);
  CHECK(sum.launches == 3 && sum.h2d_bytes == 105, "sums");

  char *base = (char *)0x7f0000000000ULL;
  const size_t mib2 = 2u << 20;
  for (long i = 0; i < 3000000; i++) {
    const void *p = base + (size_t)(i % 64) * mib2;
    counters_alloc_ptr(p, 100);
    counters_release_ptr(p);
  }
  CHECK(counters_peak_bytes() == 100, "one live allocation at a time: peak %llu",
        (unsigned long long)counters_peak_bytes());
  for (int i = 0; i < 20000; i++)
    counters_alloc_ptr(base + (size_t)i * mib2, 10);
  CHECK(counters_peak_bytes() == 200000, "20,000 live: peak %llu",
        (unsigned long long)counters_peak_bytes());
  for (int i = 0; i < 20000; i += 2)
    counters_release_ptr(base + (size_t)i * mib2);
  counters_release_ptr(base + 1); /* never counted: nothing happens */
  for (int i = 0; i < 10000; i++)
    counters_alloc_ptr(base + (size_t)i * mib2 + 64, 30);
  CHECK(counters_peak_bytes() == 400000, "10,000 left and 10,000 of 30: peak %llu",
        (unsigned long long)counters_peak_bytes());
  return fox_check_done("test_counters");
}
