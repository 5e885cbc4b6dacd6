#!/bin/sh
# Runs on a GPU machine: Nsight Compute counts (time, warp instructions issued, issue
# activity, FP32 operations, DRAM bytes) of every kernel of one `sarfuse bench --backend cuda` run,
# clocks left alone. scripts/kernel_counts.py turns the CSV into the per-pass issue and DRAM floors.
# Usage: BUNDLE=.devbundle/cli.tar.xz scripts/device_counts.sh [size]
set -u
SIZE=${1:-4096x4096}
OUT=${OUT:-/tmp/out}
BUNDLE=${BUNDLE:-.devbundle/bundle.tar.xz}
mkdir -p "$OUT" /tmp/sf && tar -C /tmp/sf -xJf "$BUNDLE"
export LD_LIBRARY_PATH=/tmp/sf/lib:/tmp/sf/bin:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum
M=$M,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum
M=$M,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
"$NCU" --clock-control none --metrics "$M" --export /tmp/counts --force-overwrite \
  /tmp/sf/bin/sarfuse bench --backend cuda --size "$SIZE" --repeats 1 > "$OUT/counts_bench_$SIZE.txt" 2>&1
"$NCU" --import /tmp/counts.ncu-rep --csv --page raw --print-kernel-base demangled > "$OUT/counts_$SIZE.csv" 2>&1
wc -l "$OUT/counts_$SIZE.csv"
