#!/usr/bin/env bash
# Fuzzes each reader of user input for a while (default 60s each), one
# target at a time: the .npy reader, the workload JSON, --set, the task
# descriptor decoder and the ONNX model and tensor readers. Not run in CI;
# as plain `go test` the targets run their seed corpora only.
# A failure leaves its input in the package's testdata/fuzz/<Target>/:
# commit it as a seed once the bug is fixed.
#   scripts/fuzz.sh            every target, 60s each
#   scripts/fuzz.sh 10s        every target, 10s each
# An input that finds new coverage is minimized first, for up to
# FUZZ_MINIMIZE (default 5s): Go's default of 60s, spent minimizing an
# input grown from the 26 KB mnist-7 seed (each candidate a whole model
# load), took all of a 30 s FuzzLoad campaign (6 executions on a loaded
# machine; 184 in 21 s here, against 106,094 with a 1 s budget).
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-60s}
minimize=${FUZZ_MINIMIZE:-5s}
targets=(
  "./internal/npy FuzzRead"
  "./cmd/hwgen FuzzWorkloadJSON"
  "./cmd/hwgen FuzzSet"
  "./isa FuzzDecode"
  "./frontend/onnx FuzzLoad"
  "./frontend/onnx FuzzLoadTensor"
)
failed=0
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "== $name ($pkg, $time)"
  if ! go test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$time" -fuzzminimizetime "$minimize" -parallel "${FUZZ_PARALLEL:-2}"; then
    failed=1
  fi
done
exit $failed
