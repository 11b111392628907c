#!/usr/bin/env bash
# Runs the nine ImageNet networks of frontend/onnx/testdata/light at
# 224×224 with seeded random weights (two seeds each) through the float
# executor and through ONNX Runtime, and prints, per network and seed, the
# largest difference relative to the output range and the float
# executor's wall time (docs/notes/networks.md records a run). Minutes of
# CPU and a few GB of memory: not part of CI. Needs scripts/setup.sh's
# onnxruntime-node. Extra arguments go to go test (e.g. -run 'Full/resnet').
set -euo pipefail
cd "$(dirname "$0")/.."
go test -tags networks -count=1 -timeout 90m -run 'TestLightNetworksFull' -v "$@" ./frontend/onnx |
  grep -E '^\s*(--- |networks_full_test.go:|ok|FAIL|PASS)' | sed 's/^ *networks_full_test.go:[0-9]*: //'
