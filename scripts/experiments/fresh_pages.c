// Experiment: what a fresh 189 MB buffer (the 4096 x 4096 CPU plan's scene) costs a process on this
// machine, with no sarfuse code: allocated, hinted for huge pages as allocate_aligned does, touched a
// page at a time on one thread. Prints wall and CPU time and the process's fault counts; run it
// several times with a pause between (docs/bench/e2e/stop39_fresh_pages.txt).
//   cc -O2 -o /tmp/fresh_pages scripts/experiments/fresh_pages.c
//   for i in $(seq 14); do /tmp/fresh_pages; sleep 0.3; done
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static double cpu(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

int main(void) {
  const size_t n = (size_t)189 << 20, huge = (size_t)2 << 20;
  const double t0 = now(), c0 = cpu();
  char* p = aligned_alloc(huge, n);
  if (!p) return 1;
  madvise(p, n, MADV_HUGEPAGE);
  for (size_t i = 0; i < n; i += 4096) p[i] = 0;
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  printf("wall %.1f ms cpu %.1f ms minor faults %ld\n", (now() - t0) * 1e3, (cpu() - c0) * 1e3, r.ru_minflt);
  return p[12345];
}
