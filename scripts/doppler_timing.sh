#!/bin/sh
# The cost of --doppler auto: a simulated 4096 x 4096 C-band scene (clutter in every cell, 12 bright
# points, noise; examples/doppler_clutter_4096.json) focused end to end with the centroid estimated and
# with it given, each backend, medians of REPEATS process walls. Usage (GPU machine or here):
#   scripts/doppler_timing.sh SARFUSE_BINARY WORKDIR "cpu cuda"
set -u
B=$1
D=$2
BACKENDS=${3:-cpu}
R=${REPEATS:-3}
mkdir -p "$D"
[ -f "$D/raw.npy" ] || "$B" simulate examples/doppler_clutter_4096.json -o "$D/raw.npy" >/dev/null
truth=$(python3 -c "import json; print(json.load(open('examples/doppler_clutter_4096.json'))['radar']['doppler_centroid_hz'])")
wall() {  # median wall of R runs of: sarfuse focus raw ARGS
  for k in $(seq "$R"); do
    s=$(date +%s.%N)
    "$B" focus "$D/raw.npy" --params examples/doppler_clutter_4096.json -o "$D/slc.npy" "$@" > "$D/log.txt" 2>&1 || { cat "$D/log.txt"; exit 1; }
    e=$(date +%s.%N)
    python3 -c "print($e - $s)"
  done | sort -n | sed -n "$(( (R + 1) / 2 ))p"
}
for be in $BACKENDS; do
  given=$(wall --backend "$be" --doppler-centroid "$truth")
  auto=$(wall --backend "$be" --doppler auto)
  est=$(python3 -c "import json; e=json.load(open('$D/slc.npy.json'))['processing']['doppler_estimate']; print('estimate %.1f Hz (truth $truth), ambiguity %d by %s, confidence %.2f, %d patch focuses' % (e['centroid_hz'], e['ambiguity'], e['ambiguity_source'], e['confidence'], e.get('check', {}).get('focuses', 0)))")
  "$B" focus "$D/raw.npy" --params examples/doppler_clutter_4096.json -o "$D/slc.npy" --backend "$be" --doppler auto --report "$D/report.json" > /dev/null 2>&1
  echo "$be: the estimate's own time (--report): $(python3 -c "import json; print(json.load(open('$D/report.json'))['timings_s']['doppler_estimation'])") s"
  echo "$be: given centroid $given s, --doppler auto $auto s, ratio $(python3 -c "print(round($auto / $given, 3))"); $est"
  always=$(wall --backend "$be" --doppler auto --doppler-check always)
  est=$(python3 -c "import json; e=json.load(open('$D/slc.npy.json'))['processing']['doppler_estimate']; print('estimate %.1f Hz, ambiguity %d by %s, confidence %.2f, %d patch focuses of %dx%d in %.3f s' % (e['centroid_hz'], e['ambiguity'], e['ambiguity_source'], e['confidence'], e['check']['focuses'], e['check']['lines'], e['check']['columns'], e['check']['seconds']))")
  echo "$be: with --doppler-check always $always s, ratio $(python3 -c "print(round($always / $given, 3))"); $est"
done
