#!/bin/sh
# This stop's device run: the GPU test binary, then the range compression bench (circular, every
# peer) per size and the whole RDA at 4096 x 4096; SANITIZE=1 adds compute-sanitizer memcheck,
# racecheck and synccheck over the fused range compression tests (one-block lengths and 32768,
# four-step over 4096-point rows).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
export SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
for t in gpu; do
  /tmp/sf/bin/sarfuse_${t}_tests > /tmp/$t.log 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/$t.log | tr '\n' ' ')" >> $OUT/tests.txt
  grep -E "^\[  FAILED|Failure" -A4 /tmp/$t.log | head -40 >> $OUT/tests.txt
done
for size in 4096x2048 4096x4096 4096x8192 8192x16384; do
  /tmp/sf/bin/sarfuse bench --backend cuda --size $size --range-mode-circular --repeats 50 >> $OUT/bench.txt 2>&1
done
/tmp/sf/bin/sarfuse bench --backend cuda --size 4096x4096 --repeats 50 >> $OUT/bench.txt 2>&1
if [ "${SANITIZE:-0}" = 1 ]; then  # the fused range compression's shapes under compute-sanitizer
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    F='*CudaRange.*/fft2048*:*CudaRange.*/fft4096*:*CudaRange.*/fft8192*:*CudaRange.*/fft16384*:*CudaRange.*/fft32768*'
    echo "== $tool, $F" >> $OUT/sanitizer.txt
    "$CS" --tool $tool /tmp/sf/bin/sarfuse_gpu_tests --gtest_brief=1 --gtest_filter="$F" 2>&1 | tail -4 >> $OUT/sanitizer.txt
  done
fi
cat $OUT/tests.txt
grep -E "range compression|fused|cuFFTDx|VkFFT|careful|total|sarfuse bench" $OUT/bench.txt | head -80
