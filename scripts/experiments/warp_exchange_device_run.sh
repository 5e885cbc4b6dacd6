#!/bin/sh
# Stop 56's device run, prepared without a GPU (none was lent that session): the warp-exchange range
# compression (rc_warp_exchange.cu at 2048 / 4096 / 8192 / 16384), pass 1's cluster variants (first_step_pass1.cu:
# split barrier, two lines a block in clusters of 8), then the bench with every peer on this card.
#   here:   sh scripts/experiments/warp_exchange_device_run.sh prepare   (needs build-cuda: make build BUILD_DIR=build-cuda)
#   device: NCU=1 sh scripts/experiments/warp_exchange_device_run.sh run  (carry .devbundle; logs in $OUT)
set -u
NVCC="nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src -I build-cuda/generated --expt-relaxed-constexpr"
case "${1:-run}" in
prepare)
  set -e
  NODATA=1 TESTS=gpu LEAN=1 sh scripts/device_bundle.sh build-cuda
  DX=.deps/mathdx-25.6.0/mathdx  # cuFFTDx in the same process, where make build fetched MathDx
  DXFLAGS=""
  [ -d $DX/include ] && DXFLAGS="-I $DX/include -I $DX/external/cutlass/include -DSARFUSE_HAVE_CUFFTDX=1 -DSARFUSE_CUFFTDX_SM=900 src/bench/cufftdx_range.cu"
  for n in 2048 4096 8192 16384; do
    $NVCC -DRC_N=$n scripts/experiments/rc_warp_exchange.cu $DXFLAGS -o /tmp/rcwx_$n
    /tmp/rcwx_$n host
    xz -T2 -c /tmp/rcwx_$n > .devbundle/rcwx_$n.xz
  done
  $NVCC scripts/experiments/first_step_pass1.cu -lcufft -o /tmp/fsp
  xz -T2 -c /tmp/fsp > .devbundle/fsp.xz
  du -sh .devbundle
  ;;
run)
  OUT=${OUT:-/tmp/out}
  D=$(pwd)/.devbundle
  mkdir -p /tmp/sf && tar -C /tmp/sf -xJf "$D"/bundle.tar.xz
  export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total --format=csv > "$OUT"/device.txt 2>&1
  for b in rcwx_2048 rcwx_4096 rcwx_8192 rcwx_16384 fsp; do xz -dc "$D"/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
  for n in 4096 2048 8192 16384; do /tmp/rcwx_$n > "$OUT"/rcwx_$n.txt 2>&1; done
  /tmp/fsp 30000 6250 > "$OUT"/fsp.txt 2>&1
  for size in 4096x2048 4096x4096 4096x8192 8192x16384; do
    /tmp/sf/bin/sarfuse bench --backend cuda --size $size --range-mode-circular --repeats 50 >> "$OUT"/bench_rc.txt 2>&1
  done
  /tmp/sf/bin/sarfuse bench --backend cuda --size 30000x6250 --repeats 20 > "$OUT"/bench_30000x6250.txt 2>&1
  /tmp/sf/bin/sarfuse bench --backend cuda --size 4096x4096 --repeats 30 > "$OUT"/bench_rda4096.txt 2>&1
  if [ "${NCU:-0}" = 1 ]; then
    NCU_BIN=/usr/local/cuda/bin/ncu
    $NCU_BIN --clock-control none --set full -k regex:rc_warp_exchange -c 1 /tmp/rcwx_4096 > "$OUT"/ncu_wx_4096.txt 2>&1
    $NCU_BIN --clock-control none --set full -k regex:range_compress_kernel -c 1 /tmp/rcwx_4096 > "$OUT"/ncu_product_4096.txt 2>&1
    $NCU_BIN --clock-control none --set full -k regex:rc_warp_exchange -c 1 /tmp/rcwx_16384 > "$OUT"/ncu_wx_16384.txt 2>&1
  fi
  cat "$OUT"/device.txt "$OUT"/rcwx_4096.txt "$OUT"/rcwx_2048.txt "$OUT"/rcwx_8192.txt "$OUT"/rcwx_16384.txt
  grep -E "round|split|two lines|bit-identical|clusters" "$OUT"/fsp.txt
  grep -E "fused|cuFFTDx|VkFFT|careful|total|speedup" "$OUT"/bench_rc.txt "$OUT"/bench_30000x6250.txt "$OUT"/bench_rda4096.txt | head -60
  ;;
esac
