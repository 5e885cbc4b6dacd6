#!/bin/sh
# The RDA's row passes at 128 registers a thread: the GPU tests, then the bench (whole RDA at 4096 x
# 4096 and 8192 x 8192, range compression circular at 4096) on the same build.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
export SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
/tmp/sf/bin/sarfuse_gpu_tests > /tmp/gpu.log 2>&1
echo "gpu rc=$? $(grep -E '^\[  (PASSED|FAILED) ' /tmp/gpu.log | tr '\n' ' ')" > $OUT/tests.txt
grep -E "^\[  FAILED|Failure" -A4 /tmp/gpu.log | head -40 >> $OUT/tests.txt
for size in 4096x4096 8192x8192; do
  /tmp/sf/bin/sarfuse bench --backend cuda --size $size --repeats 50 >> $OUT/bench.txt 2>&1
done
/tmp/sf/bin/sarfuse bench --backend cuda --size 4096x4096 --range-mode-circular --repeats 50 >> $OUT/bench.txt 2>&1
cat $OUT/tests.txt
grep -E "sarfuse bench|fused \(one|cufftdx \(|range_spectrum|range_doppler|azimuth|  total|smallest nice" $OUT/bench.txt | head -60
