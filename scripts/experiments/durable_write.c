/* Experiment (issue 17): what a durable write of a product costs on this machine's disk, three ways:
 * the file mapped and fsync'd (the CPU backend's in-place .npy), buffered pwritev + fsync, and O_DIRECT
 * pwritev from 1..8 threads + fdatasync. ROWS rows of 32 KB (4096 complex64) taken from an anonymous
 * buffer at a 40 KB pitch (the CPU plan's scene), written after a 4 KB header, into DIR.
 *   gcc -O2 -pthread scripts/experiments/durable_write.c -o durable_write && ./durable_write /tmp 2909 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { kRow = 32768, kPitch = 40960, kHead = 4096 };
static char* src;
static size_t rows;
static int fd, threads;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static void die(const char* what) { perror(what); exit(1); }

/* Rows [r0, r1) by pwritev, 64 rows a call. */
static void write_rows(size_t r0, size_t r1) {
  struct iovec iov[64];
  for (size_t r = r0; r < r1;) {
    int k = 0;
    const off_t off = kHead + (off_t)r * kRow;
    for (; k < 64 && r < r1; ++k, ++r) iov[k] = (struct iovec){src + r * kPitch, kRow};
    if (pwritev(fd, iov, k, off) != (ssize_t)k * kRow) die("pwritev");
  }
}
static void* thread_rows(void* arg) {
  const long t = (long)arg;
  write_rows(rows * t / threads, rows * (t + 1) / threads);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s DIR ROWS\n", argv[0]); return 2; }
  char path[4096];
  snprintf(path, sizeof path, "%s/durable_write.bin", argv[1]);
  rows = strtoul(argv[2], NULL, 10);
  const size_t bytes = kHead + rows * kRow;
  if (!(src = aligned_alloc(4096, rows * kPitch))) die("aligned_alloc");
  memset(src, 1, rows * kPitch);
  for (int rep = 0; rep < 3; ++rep) {
    unlink(path);
    double t0 = now();
    if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0 || ftruncate(fd, bytes)) die(path);
    char* m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) die("mmap");
    for (size_t i = kHead; i < bytes; i += 4096) m[i] = 0;
    double t1 = now();
    for (size_t r = 0; r < rows; ++r) memcpy(m + kHead + r * kRow, src + r * kPitch, kRow);
    double t2 = now();
    if (fsync(fd)) die("fsync");
    double t3 = now();
    munmap(m, bytes);
    close(fd);
    printf("mapped: prefault %.3f copy %.3f fsync %.3f s\n", t1 - t0, t2 - t1, t3 - t2);

    unlink(path);
    t0 = now();
    if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0) die(path);
    write_rows(0, rows);
    t1 = now();
    if (fsync(fd)) die("fsync");
    t2 = now();
    close(fd);
    printf("buffered pwritev: write %.3f fsync %.3f s\n", t1 - t0, t2 - t1);

    for (threads = 1; threads <= 8; threads *= 2) {
      unlink(path);
      t0 = now();
      if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644)) < 0) die(path);
      pthread_t th[8];
      for (long t = 0; t < threads; ++t) pthread_create(&th[t], NULL, thread_rows, (void*)t);
      for (int t = 0; t < threads; ++t) pthread_join(th[t], NULL);
      if (fdatasync(fd)) die("fdatasync");
      t1 = now();
      close(fd);
      printf("O_DIRECT pwritev, %d thread(s), + fdatasync: %.3f s\n", threads, t1 - t0);
    }
  }
  unlink(path);
  return 0;
}
