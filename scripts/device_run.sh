#!/bin/sh
# Runs on a GPU machine, from the repository root, with .devbundle (scripts/device_bundle.sh) beside it:
#   scripts/device_run.sh tests|bench|sanitize|all [bench sizes...]
# tests: every test binary of the suite (CPU and GPU); sanitize: compute-sanitizer memcheck over the
# GPU tests, racecheck/synccheck/initcheck over a subset; bench: `sarfuse bench --backend cuda` per size
# (+ the circular range mode at the first size). Logs and JSON under $OUT (at most 8 files come back).
set -u
WHAT=${1:-all}
[ $# -gt 0 ] && shift
SIZES=${*:-4096x4096}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export SARFUSE_TEST_DATA=/tmp/sf/data SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
LOG="$OUT/results.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv >> "$LOG" 2>&1
status=0
if [ "$WHAT" = tests ] || [ "$WHAT" = all ]; then
  for t in unit integration cli gpu; do
    /tmp/sf/bin/sarfuse_${t}_tests > /tmp/test_$t.log 2>&1
    rc=$?
    [ $rc -ne 0 ] && status=1
    printf 'tests %-12s rc=%s  %s\n' "$t" "$rc" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/test_$t.log | tr '\n' ' ')" | tee -a "$LOG"
    grep -E "FAILED|Failure|SKIPPED \]|contrast|relative L2" /tmp/test_$t.log | head -60 >> "$LOG"
  done
  cat /tmp/test_gpu.log > "$OUT/test_gpu.log"
  built_for=$(ls /tmp/sf/python/sarfuse/ 2>/dev/null | sed -n 's/^_sarfuse\.cpython-\([0-9]*\)-.*/\1/p')
  here=$(python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")' 2>/dev/null)
  if [ -d /tmp/sf/python ] && [ "$built_for" = "$here" ] && python3 -c "import numpy, pytest" 2>/dev/null; then
    SARFUSE_CLI=/tmp/sf/bin/sarfuse PYTHONPATH=/tmp/sf/python python3 -m pytest -q -rs -p no:cacheprovider \
      tests/python/test_api.py > /tmp/test_python.log 2>&1
    rc=$?
    [ $rc -ne 0 ] && status=1
    printf 'tests %-12s rc=%s  %s\n' python "$rc" "$(tail -1 /tmp/test_python.log)" | tee -a "$LOG"
    grep -E "SKIP|FAIL|Error" /tmp/test_python.log | head -20 >> "$LOG"
  else
    echo "tests python: skipped on this machine (needs python3 $built_for with numpy and pytest; has $(python3 --version 2>&1), numpy/pytest: $(python3 -c 'import numpy, pytest; print("yes")' 2>&1 | tail -1))" | tee -a "$LOG"
  fi
fi
if [ "$WHAT" = sanitize ] || [ "$WHAT" = all ]; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  SUB='Pow2/CudaFftSizes.*/0:Pow2/CudaFftSizes.*/4:*CudaRange*:Pipelines/CudaChain.FiveTarget*'
  {
    echo "== memcheck, whole GPU test binary but CudaMemory.*"; "$CS" --tool memcheck --leak-check full /tmp/sf/bin/sarfuse_gpu_tests --gtest_brief=1 --gtest_filter=-CudaMemory.* 2>&1 | tail -4
    # CudaMemory makes cudaMalloc fail on purpose: those API errors are the test, not findings.
    echo "== memcheck, CudaMemory.* (deliberately failing allocations: API errors not reported)"; "$CS" --tool memcheck --report-api-errors no --leak-check full /tmp/sf/bin/sarfuse_gpu_tests --gtest_brief=1 --gtest_filter=CudaMemory.* 2>&1 | tail -4
    for tool in racecheck synccheck initcheck; do
      echo "== $tool, $SUB"; "$CS" --tool $tool /tmp/sf/bin/sarfuse_gpu_tests --gtest_brief=1 --gtest_filter="$SUB" 2>&1 | tail -4
    done
  } > "$OUT/sanitizer.txt" 2>&1
  cat "$OUT/sanitizer.txt" | tee -a "$LOG"
fi
if [ "$WHAT" = bench ] || [ "$WHAT" = all ]; then
  first=1
  for size in $SIZES; do
    /tmp/sf/bin/sarfuse bench --backend cuda --size "$size" --repeats 50 --json "$OUT/bench_$size.json" >> "$LOG" 2>&1
    if [ $first = 1 ]; then
      /tmp/sf/bin/sarfuse bench --backend cuda --size "$size" --repeats 50 --range-mode-circular \
        --json "$OUT/bench_${size}_circular.json" >> "$LOG" 2>&1
      first=0
    fi
  done
fi
tail -c 11000 "$LOG"
exit $status
