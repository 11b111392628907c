// Package toolchain finds and runs the external tools hwgen is checked
// with (Verilator, Icarus Verilog, Yosys).
package toolchain

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// RequireEnv is the environment variable that turns a missing tool from a
// skipped test into a failed one (see internal/tooltest). CI sets it.
const RequireEnv = "HWGEN_REQUIRE_VERILATOR"

// InstallHint tells a user how to get the tools.
const InstallHint = "install with scripts/setup.sh (apt-get install verilator iverilog yosys nextpnr-ice40 fpga-icestorm)"

// Find returns the path of tool or an error that says how to install it.
func Find(tool string) (string, error) {
	p, err := exec.LookPath(tool)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH; %s", tool, InstallHint)
	}
	return p, nil
}

// Run runs a command in dir and returns its combined output; a non-zero
// exit is an error that carries the output.
func Run(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// Lint runs verilator --lint-only -Wall (and flags) on the files (in
// dependency order) and returns an error with the warnings if there are any.
func Lint(dir, top string, files []string, flags ...string) error {
	args := append(append([]string{"--lint-only", "-Wall"}, flags...), "--top-module", top)
	args = append(args, files...)
	out, err := Run(dir, "verilator", args...)
	if err != nil {
		return err
	}
	if strings.Contains(out, "%Warning") || strings.Contains(out, "%Error") {
		return fmt.Errorf("verilator lint of %s reported:\n%s", top, out)
	}
	return nil
}

// Synth runs Yosys generic synthesis with check -assert (no latches, no
// combinational loops, no driver conflicts) and returns the stat report.
func Synth(dir, top string, files []string) (string, error) {
	script := fmt.Sprintf("read_verilog %s; synth -top %s; check -assert; tee -q -o yosys_stat.txt stat", strings.Join(files, " "), top)
	out, err := Run(dir, "yosys", "-q", "-p", script)
	if err != nil {
		return out, err
	}
	stat, err := os.ReadFile(filepath.Join(dir, "yosys_stat.txt"))
	if err != nil {
		return "", err
	}
	if strings.Contains(strings.ToLower(string(stat)), "latch") {
		return string(stat), fmt.Errorf("yosys synthesis of %s inferred a latch:\n%s", top, stat)
	}
	return string(stat), nil
}

// Icarus compiles the files with iverilog -g2005 into dir/a.out.
func Icarus(dir, top string, files []string) error {
	args := append([]string{"-g2005", "-Wall", "-s", top, "-o", "a.out"}, files...)
	_, err := Run(dir, "iverilog", args...)
	return err
}

// CellSummary reads a Yosys `stat` report of one module and returns its
// total cell count and a sorted "TYPE n, ..." list (leading $ and _ of
// the type names trimmed). Cells whose type starts with one of skip are
// left out: they are black-box instances, counted on their own.
func CellSummary(report string, skip ...string) (int, string) {
	byType := map[string]int{}
	in := false
	for _, line := range strings.Split(report, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 4 && fields[0] == "Number" && fields[2] == "cells:":
			in = true
		case in && len(fields) == 2:
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				in = false
				continue
			}
			if !hasAnyPrefix(fields[0], skip) {
				byType[strings.Trim(fields[0], "$_")] = n
			}
		default:
			in = false
		}
	}
	total := 0
	var types []string
	for k, n := range byType {
		total += n
		types = append(types, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(types)
	return total, strings.Join(types, ", ")
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
