#!/usr/bin/env bash
# Runs the nine ImageNet networks of frontend/onnx/testdata/light at
# 224×224 with seeded random weights and a seeded random input (two seeds
# each) through `hwgen run --random-weights S --engine interp` (the
# compiler's reference machine), ResNet-50, ShuffleNet and SqueezeNet also
# through `--engine go` (the Go simulator of the NPU), and through
# `hwgen quantize` with ONNX Runtime on the export, and prints one table:
# network, seed, engine, MACs, tasks, compile time, cycles, MAC
# utilization, the logits' SQNR against the float executor, whether ONNX
# Runtime's output of the export equals the NPU's bit for bit, and the
# wall time. A network hwgen refuses (an op it does not lower, the memory
# estimate) prints its refusal line in its row. Minutes to hours of CPU
# and a few GB of memory: not part of CI. Needs scripts/setup.sh's
# onnxruntime-node. NETWORKS=resnet50,squeezenet runs only the networks
# whose names contain one of the words, MODEL=m.onnx one model of yours
# on both engines, HWGEN_ARGS='--max-memory 24G --set ext_addr_width=24'
# adds flags to every hwgen run and quantize; extra arguments go to go test.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -tags networks -count=1 -timeout 600m -run 'TestLightNetworksNPU' -v "$@" ./cmd/hwgen |
  grep -vE '^(=== RUN|    capture|PASS$)'
