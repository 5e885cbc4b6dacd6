#!/bin/sh
# Runs on the GPU machine (device tool), from the repository root, with .devbundle carried:
#   scripts/device_run.sh [tests|bench|all] [bench sizes...]
# Every test binary of the suite (CPU and GPU), then the CUDA benchmark; logs under $OUT.
set -u
WHAT=${1:-all}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export SARFUSE_TEST_DATA=/tmp/sf/data SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
status=0
if [ "$WHAT" = tests ] || [ "$WHAT" = all ]; then
  for t in unit integration cli gpu; do
    /tmp/sf/bin/sarfuse_${t}_tests --gtest_brief=1 > "$OUT/test_$t.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] && status=1
    printf '%-12s rc=%s  %s\n' "$t" "$rc" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/test_$t.log" | tr '\n' ' ')"
  done
  grep -E "FAILED|Failure" -A6 "$OUT"/test_*.log | head -60
fi
if [ "$WHAT" = bench ] || [ "$WHAT" = all ]; then
  shift 2>/dev/null || true
  for size in ${*:-4096x4096}; do
    /tmp/sf/bin/sarfuse bench --backend cuda --size "$size" --repeats 50 --json "$OUT/bench_$size.json" > "$OUT/bench_$size.txt" 2>&1
    cat "$OUT/bench_$size.txt"
  done
fi
exit $status
