#!/bin/sh
# Profiles the CUDA bench's kernels with Nsight Compute on the GPU machine (clocks left alone).
# Usage: scripts/device_profile.sh [size] [kernel regex]
set -u
SIZE=${1:-4096x4096}
KREGEX=${2:-range}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
"$NCU" --clock-control none --kernel-name "regex:$KREGEX" --launch-skip 3 --launch-count 4 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  /tmp/sf/bin/sarfuse bench --backend cuda --size "$SIZE" --repeats 2 > "$OUT/ncu.txt" 2>&1
grep -E "range_kernel|range_doppler|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|L1/TEX Hit|Shared Memory|Block Limit|Issue Slots|Warp Cycles Per Issued|Bank" "$OUT/ncu.txt" | head -120
