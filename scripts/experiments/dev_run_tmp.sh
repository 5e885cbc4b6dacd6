set -u
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/sf && tar -C /tmp/sf -xJf .devbundle/bundle.tar.xz
export LD_LIBRARY_PATH=/tmp/sf/lib:/usr/local/cuda/lib64
B=/tmp/sf/bin/sarfuse; D=$(pwd)/.e2e; mkdir -p $D
/tmp/sf/bin/sarfuse_gpu_tests --gtest_filter='CudaFocusFile*:CudaFocusRows*' > /tmp/gpu.log 2>&1; echo "gpu rc=$?" > $OUT/tests.txt; grep -E "^\[  (PASSED|FAILED) |Failure" /tmp/gpu.log >> $OUT/tests.txt
for spec in "c32 --sample-format complex32 --size 30000x6250 --input int8" "s4k --size 4096x4096 --input c64"; do
  set -- $spec; name=$1; shift
  $B bench e2e --dir $D/$name --json $D/$name.json --backend cuda --output npy --repeats ${R:-3} "$@" > $OUT/$name.txt 2>&1
done
for h in 0 1 0 1; do
echo "helper $h" >> $OUT/exit.txt
SARFUSE_TEARDOWN_HELPER=$h python3 scripts/experiments/exit_cost.py $B $D/c32/raw_0.npy $D/c32/params.json $D/x 3 --backend cuda --sample-format complex32 >> $OUT/exit.txt 2>&1
SARFUSE_TEARDOWN_HELPER=$h python3 scripts/experiments/exit_cost.py $B $D/s4k/raw_0.npy $D/s4k/params.json $D/x 3 --backend cuda >> $OUT/exit.txt 2>&1
done
rm -rf $D
