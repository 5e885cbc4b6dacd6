#!/bin/sh
# A stop's device run: the GPU test binary, then the range compression bench (circular, every peer)
# per size of RC_SIZES and the whole RDA per size of RDA_SIZES (REPEATS each); SANITIZE=1 adds
# compute-sanitizer memcheck, racecheck and synccheck over the tests SANITIZE_FILTER names (default:
# the fused range compression at every one-block length and 32768, four-step over 4096-point rows).
set -u
OUT=${OUT:-/tmp/out}
RC_SIZES=${RC_SIZES-4096x2048 4096x4096 4096x8192 8192x16384}
RDA_SIZES=${RDA_SIZES-4096x4096}
REPEATS=${REPEATS:-50}
SANITIZE_FILTER=${SANITIZE_FILTER:-'*CudaRange.*/fft2048*:*CudaRange.*/fft4096*:*CudaRange.*/fft8192*:*CudaRange.*/fft16384*:*CudaRange.*/fft32768*'}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
export SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
for t in gpu; do
  /tmp/sf/bin/sarfuse_${t}_tests > /tmp/$t.log 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/$t.log | tr '\n' ' ')" >> $OUT/tests.txt
  grep -E "^\[  FAILED|Failure" -A4 /tmp/$t.log | head -40 >> $OUT/tests.txt
done
for size in $RC_SIZES; do
  /tmp/sf/bin/sarfuse bench --backend cuda --size $size --range-mode-circular --repeats $REPEATS >> $OUT/bench.txt 2>&1
done
for size in $RDA_SIZES; do
  /tmp/sf/bin/sarfuse bench --backend cuda --size $size --repeats $REPEATS >> $OUT/bench.txt 2>&1
done
if [ "${SANITIZE:-0}" = 1 ]; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    echo "== $tool, $SANITIZE_FILTER" >> $OUT/sanitizer.txt
    "$CS" --tool $tool /tmp/sf/bin/sarfuse_gpu_tests --gtest_brief=1 --gtest_filter="$SANITIZE_FILTER" 2>&1 | tail -4 >> $OUT/sanitizer.txt
  done
fi
cat $OUT/tests.txt
grep -E "range compression|fused|cuFFTDx|VkFFT|careful|total|sarfuse bench" $OUT/bench.txt | head -80
