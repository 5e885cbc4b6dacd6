set -u
OUT=${OUT:-/tmp/out}
sh scripts/device_run.sh tests > /tmp/tests_stdout.txt 2>&1
mv $OUT/results.txt $OUT/tests.txt; rm -f $OUT/test_gpu.log
REPEATS=5 sh scripts/device_e2e.sh > /tmp/e2e_stdout.txt 2>&1
grep -E "^== |process wall|I/O floor|ratio" $OUT/e2e.txt > $OUT/e2e_summary.txt
