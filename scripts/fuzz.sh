#!/usr/bin/env bash
# Fuzzes each reader of user input for a while (default 60s each), one
# target at a time: the .npy reader, the workload JSON, --set, the task
# descriptor decoder and the ONNX model and tensor readers. Not run in CI;
# as plain `go test` the targets run their seed corpora only.
# A failure leaves its input in the package's testdata/fuzz/<Target>/:
# commit it as a seed once the bug is fixed.
#   scripts/fuzz.sh            every target, 60s each
#   scripts/fuzz.sh 10s        every target, 10s each
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-60s}
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
  if ! go test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$time" -parallel 2; then
    failed=1
  fi
done
exit $failed
