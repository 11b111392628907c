// Package emittest holds the scaffolding every block's emit tests share:
// elaborate a module, write its Verilog to a temporary directory, and lint
// or synthesize it there.
package emittest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verilog"
)

// Dir elaborates m, writes its Verilog into a fresh temporary directory
// and returns the directory, the design and the file list.
func Dir(t testing.TB, m *hdl.Module) (string, *hdl.Design, []string) {
	t.Helper()
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "rtl")
	if err := verilog.WriteDir(dir, verilog.Emit(d)); err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadFile(filepath.Join(dir, d.Top.Name+".f"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, d, strings.Fields(string(list))
}

// Lint requires zero warnings from verilator --lint-only -Wall.
func Lint(t testing.TB, m *hdl.Module) {
	t.Helper()
	tooltest.Need(t, "verilator")
	dir, d, files := Dir(t, m)
	if err := toolchain.Lint(dir, d.Top.Name, files); err != nil {
		t.Fatal(err)
	}
}

// Synth runs Yosys synth with its checks (no latch, no combinational
// loop, no driver conflict) and returns the statistics report.
func Synth(t testing.TB, m *hdl.Module) string {
	t.Helper()
	tooltest.Need(t, "yosys")
	dir, d, files := Dir(t, m)
	stat, err := toolchain.Synth(dir, d.Top.Name, files)
	if err != nil {
		t.Fatal(err)
	}
	return stat
}

// LogicCells synthesizes m with its SRAM macros as black boxes (Yosys
// synth, with its checks: no latch, loop or driver conflict) and returns
// the cells of m's logic, macros left out, and their types.
func LogicCells(t testing.TB, m *hdl.Module) (int, string) {
	t.Helper()
	tooltest.Need(t, "yosys")
	dir, d, files := Dir(t, m)
	var script strings.Builder
	var own []string
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "hwgen_sram_") {
			fmt.Fprintf(&script, "read_verilog -lib %s; ", f)
		} else {
			own = append(own, f)
		}
	}
	fmt.Fprintf(&script, "read_verilog %s; synth -flatten -top %s; check -assert; tee -q -o logic_stat.txt stat", strings.Join(own, " "), d.Top.Name)
	if _, err := toolchain.Run(dir, "yosys", "-q", "-p", script.String()); err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile(filepath.Join(dir, "logic_stat.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(stat)), "latch") {
		t.Fatalf("yosys synthesis of %s inferred a latch:\n%s", d.Top.Name, stat)
	}
	total, types := toolchain.CellSummary(string(stat), "hwgen_sram_")
	if total == 0 {
		t.Fatalf("no cells found for %s", d.Top.Name)
	}
	return total, types
}
