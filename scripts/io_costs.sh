#!/bin/sh
# What process start and the product writers cost, on this machine (docs/performance.md, design.md):
#   scripts/io_costs.sh [SIZE]      (needs build/sarfuse, cc, python3; SIZE default 8000x6250)
# 1. process start: empty programs linked to libgdal, and to HDF5 + matio + FFTW + libpng; `sarfuse --help`.
# 2. writers: one simulated take focused to .npy, .tif, .h5 (none, fast), each product's write/encode
#    time from its --report, and the write calls each makes (strace, where installed).
set -eu
SIZE=${1:-8000x6250}
B=${B:-build/sarfuse}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
echo 'int main(void) { return 0; }' > "$D/empty.c"
cc "$D/empty.c" -o "$D/with_gdal" -Wl,--no-as-needed -lgdal
cc "$D/empty.c" -o "$D/with_others" -Wl,--no-as-needed -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5 -lmatio \
  -lfftw3f_omp -lfftw3_omp -lpng
python3 - "$D" "$B" <<'PY'
import subprocess, sys, time
d, b = sys.argv[1], sys.argv[2]
def median_start(cmd, n=15):
    t = []
    for _ in range(n):
        t0 = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t.append(time.perf_counter() - t0)
    return sorted(t)[n // 2]
print(f"process start (median of 15): empty + libgdal {median_start([d + '/with_gdal'])*1e3:.0f} ms, "
      f"empty + HDF5/matio/FFTW/libpng {median_start([d + '/with_others'])*1e3:.0f} ms, "
      f"sarfuse --help {median_start([b, '--help'])*1e3:.0f} ms")
PY
$B bench e2e --size "$SIZE" --input c64 --backend cpu --repeats 1 --dir "$D/take" > /dev/null 2>&1
for out in npy tif h5:none h5:fast; do
  ext=${out%%:*}; c=${out#*:}; [ "$c" = "$out" ] && c=auto
  rm -f "$D/p.$ext"
  run="$B focus $D/take/raw.npy --params $D/take/params.json --backend cpu -o $D/p.$ext --compression $c --report $D/r.json"
  calls=""
  if command -v strace > /dev/null; then
    calls=$(strace -f -c -e trace=write,pwrite64 -o "$D/st.txt" $run > /dev/null 2>&1; awk '/total/{print $4}' "$D/st.txt")
    rm -f "$D/p.$ext"
  fi
  $run > /dev/null
  python3 -c "import json,sys; t=json.load(open('$D/r.json'))['timings_s']; print(f'$out: write {t[\"write\"]:.3f} s, encode {t[\"encode\"]:.3f} s, file {__import__(\"os\").path.getsize(\"$D/p.$ext\")/1e6:.1f} MB, write calls ${calls:-n/a}')"
done
