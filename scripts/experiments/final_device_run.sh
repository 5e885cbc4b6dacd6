#!/bin/sh
# The stop's last device run: the CLI tests and the device-path GPU tests on the final build, then the
# file-to-product table (REPEATS runs per case). Carry .devbundle (TESTS="cli gpu").
set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
export SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
/tmp/sf/bin/sarfuse_cli_tests > /tmp/cli.log 2>&1; echo "cli rc=$?" > $OUT/tests.txt
/tmp/sf/bin/sarfuse_gpu_tests --gtest_filter='CudaDevicePointers*:CudaFocusRows*:CudaFocusFile*' > /tmp/gpu.log 2>&1; echo "gpu (device paths) rc=$?" >> $OUT/tests.txt
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |Failure" /tmp/cli.log /tmp/gpu.log >> $OUT/tests.txt
REPEATS=${REPEATS:-3} sh scripts/device_e2e.sh > /dev/null 2>&1
grep -E "^== |process wall|I/O floor|ratio" $OUT/e2e.txt > $OUT/e2e_summary.txt
