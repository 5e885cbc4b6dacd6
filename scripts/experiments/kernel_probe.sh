#!/bin/sh
# GPU machine: the column-kernel variants (4096 x 5120, 4096 x 4096, 8192 x 8192) and Nsight Compute's
# view of the fused range compression (4096) and of the column tiles / cuFFT strided, logs under $OUT.
set -u
OUT=${OUT:-/tmp/out}
NV="nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr"
$NV scripts/experiments/column_variants.cu -lcufft -o /tmp/colv &
$NV -DCOL_N=8192 scripts/experiments/column_variants.cu -lcufft -o /tmp/colv8 &
$NV scripts/experiments/rc_variants.cu -o /tmp/rcv &
wait
{ /tmp/colv 5120; /tmp/colv 4096; /tmp/colv8 8192; } > $OUT/columns.txt 2>&1
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis"
$NCU --clock-control none --kernel-name regex:range_compress_kernel --launch-count 1 $S /tmp/rcv > $OUT/ncu_rc.txt 2>&1
$NCU --clock-control none --launch-count 4 $S /tmp/colv 5120 > $OUT/ncu_col.txt 2>&1
cat $OUT/columns.txt
grep -E "Duration|Throughput|Issue Slots|Registers|Achieved Occupancy|Warp Cycles Per Issued|No Eligible|Stall|==PROF==|void|Block Limit" $OUT/ncu_rc.txt $OUT/ncu_col.txt | head -120
