#!/bin/sh
# Stop 36's device run: the GPU test binary; compute-sanitizer memcheck / racecheck / synccheck over the
# nice-length row passes (16 points a thread, two exchange buffers) and the nice-length FFTs; the whole
# RDA at the nice range FFT lengths the plans pick (4096 x 4096: 5120, 1536 x 2048: 3072, 8192 x 8192:
# 10240) with every baseline.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
export SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
/tmp/sf/bin/sarfuse_gpu_tests > /tmp/gpu.log 2>&1
echo "gpu rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' /tmp/gpu.log | tr '\n' ' ')" >> $OUT/tests.txt
grep -E "^\[  FAILED|Failure" -A4 /tmp/gpu.log | head -40 >> $OUT/tests.txt
grep -iE "nice|rel" /tmp/gpu.log | head -60 > $OUT/gpu_nice_lines.txt
cp /tmp/gpu.log $OUT/gpu_tests.txt
for size in 4096x4096 1536x2048 8192x8192; do
  /tmp/sf/bin/sarfuse bench --backend cuda --size $size --repeats 30 >> $OUT/bench.txt 2>&1
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='CudaNiceRange.*:CudaPrecision.Fp16StorageAtEachNiceLength*:NonPow2/CudaFftSizes.*'
for tool in memcheck racecheck synccheck; do
  echo "== $tool, $F" >> $OUT/sanitizer.txt
  timeout 150 "$CS" --tool $tool /tmp/sf/bin/sarfuse_gpu_tests --gtest_brief=1 --gtest_filter="$F" 2>&1 | tail -4 >> $OUT/sanitizer.txt
done
cat $OUT/tests.txt $OUT/sanitizer.txt
grep -E "fused|cufft|vkfft|total|sarfuse bench|stage|pass" $OUT/bench.txt | head -60
