#!/bin/sh
# The grouped convolution's device run (issue 20; prepared at stop 56, reshaped at stop 57 after a session
# whose machines came late and were taken back mid-run): one call that answers first what decides, and
# writes each answer under $OUT as soon as it has it, so a call cut short still brings back the rest.
#   here:   sh scripts/experiments/warp_exchange_device_run.sh prepare   (needs build-cuda: make build BUILD_DIR=build-cuda)
#   device: sh scripts/experiments/warp_exchange_device_run.sh run       (carry ["build-exp", ".devbundle"])
# prepare builds the experiments from main (rc_warp_exchange.cu times main's fused kernel beside the grouped
# one, cuFFTDx in the same process), then applies docs/bench/range_compression/stop56_grouped_convolution.patch,
# builds and bundles the patched GPU tests and CLI (so the same call checks the product kernel and times it
# beside every peer), and takes the patch back out. The carry counts the working tree too: tracked files
# (~6 MB) + .devbundle (~53 MB) + build-exp (~6 MB) stay under 64 MiB only without the 2048 experiment and fsp.
set -u
NVCC="nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src -I build-cuda/generated --expt-relaxed-constexpr"
PATCH=docs/bench/range_compression/stop56_grouped_convolution.patch
case "${1:-run}" in
prepare)
  set -e
  mkdir -p build-exp
  DX=.deps/mathdx-25.6.0/mathdx  # cuFFTDx in the same process, where make build fetched MathDx
  DXFLAGS=""
  [ -d $DX/include ] && DXFLAGS="-I $DX/include -I $DX/external/cutlass/include -DSARFUSE_HAVE_CUFFTDX=1 -DSARFUSE_CUFFTDX_SM=900 src/bench/cufftdx_range.cu"
  for n in 4096 16384 8192; do
    $NVCC -DRC_N=$n scripts/experiments/rc_warp_exchange.cu $DXFLAGS -o build-exp/rcwx_$n
    xz -T2 -f build-exp/rcwx_$n
  done
  git apply $PATCH
  trap 'git apply -R $PATCH' EXIT
  ninja -C build-cuda sarfuse tests/sarfuse_gpu_tests tests/sarfuse_unit_tests
  build-cuda/tests/sarfuse_unit_tests --gtest_filter='FftMath.GroupedConvolution*'
  NODATA=1 TESTS=gpu LEAN=1 sh scripts/device_bundle.sh build-cuda
  du -cb $(git ls-files) .devbundle/bundle.tar.xz build-exp/* 2>/dev/null | tail -1
  ;;
run)
  OUT=${OUT:-/tmp/out}
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > "$OUT"/device.txt 2>&1
  for n in 4096 8192 16384; do xz -dc build-exp/rcwx_$n.xz > /tmp/rcwx_$n && chmod +x /tmp/rcwx_$n; done
  mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
  export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64 SARFUSE_TEST_SOURCE=$(pwd) SARFUSE_TEST_CLI=/tmp/sf/bin/sarfuse
  S=$(date +%s)
  mark() { echo "$1 at $(( $(date +%s) - S )) s" >> "$OUT"/times.txt; }
  before() { [ $(( $(date +%s) - S )) -lt "$1" ]; }  # start a step only while this many seconds have not passed
  BENCH="/tmp/sf/bin/sarfuse bench --backend cuda --range-mode-circular --repeats 50"
  ONE_BLOCK='*CudaRange.*/fft2048*:*CudaRange.*/fft4096*:*CudaRange.*/fft8192*:*CudaRange.*/fft16384*'
  # 1. main's kernel vs grouped vs cuFFTDx, one process; 2. the patched product kernel against float64
  timeout 60 /tmp/rcwx_4096 > "$OUT"/rcwx_4096.txt 2>&1; mark rcwx_4096
  timeout 60 /tmp/sf/bin/sarfuse_gpu_tests --gtest_filter='*CudaRange*:*CudaDevicePointers*:*CudaLongLines*' \
    > "$OUT"/test_gpu_range.log 2>&1; mark "range tests rc=$?"
  timeout 60 /tmp/rcwx_16384 > "$OUT"/rcwx_16384.txt 2>&1; mark rcwx_16384
  # 3. the patched product beside every peer; 4. racecheck on the one-block lengths
  before 200 && { timeout 40 $BENCH --size 4096x4096 >> "$OUT"/bench_rc.txt 2>&1; mark bench_4096; }
  before 230 && { timeout 50 /usr/local/cuda/bin/compute-sanitizer --tool racecheck /tmp/sf/bin/sarfuse_gpu_tests \
    --gtest_brief=1 --gtest_filter="$ONE_BLOCK" > "$OUT"/racecheck.txt 2>&1; mark racecheck; }
  before 280 && { timeout 40 $BENCH --size 8192x16384 >> "$OUT"/bench_rc.txt 2>&1; mark bench_16384; }
  before 300 && { timeout 40 /tmp/rcwx_8192 > "$OUT"/rcwx_8192.txt 2>&1; mark rcwx_8192; }
  for size in 4096x2048 4096x8192; do before 330 && { timeout 30 $BENCH --size $size >> "$OUT"/bench_rc.txt 2>&1; mark bench_$size; }; done
  # 5. the whole GPU suite and memcheck, where time is left
  before 360 && { timeout 150 /tmp/sf/bin/sarfuse_gpu_tests > "$OUT"/test_gpu.log 2>&1; mark "gpu suite rc=$?"; }
  before 480 && { timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck /tmp/sf/bin/sarfuse_gpu_tests \
    --gtest_brief=1 --gtest_filter="$ONE_BLOCK" > "$OUT"/memcheck.txt 2>&1; mark memcheck; }
  cat "$OUT"/device.txt "$OUT"/times.txt
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|fused range compression" "$OUT"/test_gpu_range.log | head -20
  tail -3 "$OUT"/racecheck.txt "$OUT"/memcheck.txt 2>/dev/null
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED" "$OUT"/test_gpu.log 2>/dev/null | head
  grep -hv "^N = " "$OUT"/rcwx_4096.txt "$OUT"/rcwx_16384.txt | head -70
  grep -E "fused|cuFFTDx|VkFFT|careful" "$OUT"/bench_rc.txt 2>/dev/null | head -30
  ;;
esac
