// Package emittest holds the scaffolding every block's emit tests share:
// elaborate a module, write its Verilog to a temporary directory, and lint
// or synthesize it there.
package emittest

import (
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
