#!/bin/sh
# Runs on a GPU machine, from the repository root, with .devbundle (scripts/device_bundle.sh) beside it:
#   scripts/device_e2e.sh [quick]
# `sarfuse bench e2e` for the file-to-product cases of docs/performance.md (each beside the plain I/O
# floor measured in the same run), on the disk under the working tree. Logs and JSON under $OUT.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/sf
[ -x /tmp/sf/bin/sarfuse ] || tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/sf/bin/sarfuse
D=$(pwd)/.e2e
mkdir -p "$D"
LOG="$OUT/e2e.txt"
{ nproc; free -g | head -2; df -h "$D" /tmp | cat; nvidia-smi --query-gpu=name,driver_version --format=csv; } >> "$LOG" 2>&1
n=0
e2e() {  # name, then bench e2e options
  name=$1; shift
  n=$((n + 1))
  echo "== $name: $*" | tee -a "$LOG"
  $B bench e2e --dir "$D/$name" --json "$D/$name.json" "$@" 2>&1 | tee -a "$LOG" | grep -E "process wall|I/O floor|ratio"
  rm -rf "$D/$name"
}
R=${REPEATS:-3}
e2e big_int8_c64_cuda --size 30000x6250 --input int8 --output npy --backend cuda --repeats $R
e2e big_int8_c32_cuda --size 30000x6250 --input int8 --output npy --sample-format complex32 --backend cuda --repeats $R
e2e big_int8_c64_cpu --size 30000x6250 --input int8 --output npy --backend cpu --repeats $R
e2e big_h5_fast_cuda --size 30000x6250 --input int8 --output h5 --compression fast --backend cuda --repeats $R
e2e big_tif_cuda --size 30000x6250 --input int8 --output tif --backend cuda --repeats $R
e2e s4k_lin_cuda --size 4096x4096 --input c64 --backend cuda --repeats $R
e2e s4k_lin_cpu --size 4096x4096 --input c64 --backend cpu --repeats $R
e2e s4k_circ_cuda --size 4096x4096 --input c64 --backend cuda --azimuth circular --repeats $R
e2e s4k_circ_cpu --size 4096x4096 --input c64 --backend cpu --azimuth circular --repeats $R
e2e s4k_x8_cuda --size 4096x4096 --input c64 --backend cuda --scenes 8 --repeats $R
python3 - "$D" > "$OUT/e2e.json" <<'PY'
import json, os, sys
d = sys.argv[1]
print(json.dumps({f[:-5]: json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d)) if f.endswith(".json")}, indent=1))
PY
