"""The 4096 x 4096 linear product's bytes (2909 rows of 32 KB, 95 MB) written to this disk with O_DIRECT
and fsync'd: contiguous 8 or 32 MB writes by 1-8 threads, and gathered from rows at the CPU scene's pitch
(4736 samples) by pwritev, as the product writer does. Median and fastest of 7 per case
(docs/bench/e2e/stop39_direct_write.txt).
  python3 scripts/experiments/direct_write.py [folder on the disk, default /tmp]
"""
import mmap, os, sys, threading, time

ROWS, ROW, PITCH = 2909, 32768, 4736 * 8
N = ROWS * ROW
folder = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
scene = mmap.mmap(-1, ROWS * PITCH)
scene.write(os.urandom(1 << 20) * (ROWS * PITCH >> 20))
view = memoryview(scene)


def timed(write):
    path = os.path.join(folder, "direct_write_test.bin")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT)
    try:
        os.posix_fallocate(fd, 0, N)
        t0 = time.perf_counter()
        write(fd)
        os.fsync(fd)
        return time.perf_counter() - t0
    finally:
        os.close(fd)
        os.unlink(path)


def contiguous(threads, chunk):
    def write(fd):
        def part(k):
            for off in range(k * chunk, N, threads * chunk):
                os.pwrite(fd, view[off:min(N, off + chunk)], off)
        ts = [threading.Thread(target=part, args=(k,)) for k in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    return write


def gathered(fd):
    off = 0
    for r0 in range(0, ROWS, 256):
        off += os.pwritev(fd, [view[r * PITCH:r * PITCH + ROW] for r in range(r0, min(ROWS, r0 + 256))], off)


cases = [("contiguous, 1 thread, 8 MB", contiguous(1, 8 << 20)), ("contiguous, 1 thread, 32 MB", contiguous(1, 32 << 20)),
         ("contiguous, 4 threads, 8 MB", contiguous(4, 8 << 20)), ("contiguous, 8 threads, 2 MB", contiguous(8, 2 << 20)),
         ("gathered rows (pwritev, 32 KB pieces)", gathered)]
for name, write in cases:
    t = sorted(timed(write) for _ in range(7))
    print(f"{name:40s} median {t[3]:.4f} s  fastest {t[0]:.4f} s  ({N / t[3] / 1e9:.2f} GB/s)")
