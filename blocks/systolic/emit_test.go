package systolic

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/emittest"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verilog"
)

// emitDir writes cfg's Verilog into a temporary directory and returns it
// with the file list.
func emitDir(t testing.TB, cfg Config) (string, *hdl.Design, []string) {
	t.Helper()
	m, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return emittest.Dir(t, m)
}

// Every configuration shape lints clean with verilator -Wall (including
// the corners: 1×1, 128 rows or columns, rows not a power of two, narrow
// unsigned and 32-bit formats, the default 16×16) and compiles under
// Icarus.
func TestLint(t *testing.T) {
	tooltest.Need(t, "verilator")
	cases := []func(*Config){
		func(c *Config) { c.Rows, c.Cols = 4, 4 },
		func(c *Config) { c.Rows, c.Cols, c.ZeroSkip = 4, 4, false },
		func(c *Config) { c.Rows, c.Cols = 1, 1 },
		func(c *Config) {
			c.Rows, c.Cols, c.InputWidth, c.WeightWidth, c.InputSigned, c.WeightSigned, c.PsumWidth, c.EntryWidth = 3, 5, 4, 4, false, false, 8, 1
		},
		func(c *Config) { c.Rows, c.Cols, c.WeightSigned, c.CounterWidth, c.PsumWidth = 5, 2, false, 64, 64 },
		func(c *Config) { c.Rows, c.Cols, c.InputWidth, c.WeightWidth, c.PsumWidth = 128, 2, 32, 32, 64 },
		func(c *Config) { c.Rows, c.Cols = 2, 128 },
		func(c *Config) { c.Rows, c.Cols, c.NoDatapathReset = 4, 4, true },
		func(c *Config) { c.Rows, c.Cols, c.ZeroSkip, c.NoDatapathReset = 3, 2, false, true },
		func(c *Config) { c.Rows, c.Cols, c.MulStage, c.NoDatapathReset = 2, 3, true, true },
		func(c *Config) { c.Rows, c.Cols, c.ZeroSkip, c.MulStage = 5, 1, false, true },
		func(c *Config) {},
	}
	for _, mod := range cases {
		cfg := DefaultConfig()
		mod(&cfg)
		t.Run(Name(cfg), func(t *testing.T) {
			dir, d, files := emitDir(t, cfg)
			if err := toolchain.Lint(dir, d.Top.Name, files); err != nil {
				t.Fatal(err)
			}
			if cfg.Rows*cfg.Cols <= 256 { // Icarus is slow on the 128-wide skews
				t.Run("icarus", func(t *testing.T) {
					tooltest.Need(t, "iverilog")
					if err := toolchain.Icarus(dir, d.Top.Name, files); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

// Small configurations synthesize with Yosys without a latch, a loop or
// a driver conflict (check -assert).
func TestSynth(t *testing.T) {
	tooltest.Need(t, "yosys")
	for _, v := range []struct{ zs, noReset, mulStage bool }{{true, false, false}, {false, false, false}, {true, true, false}, {true, false, true}} {
		cfg := DefaultConfig()
		cfg.Rows, cfg.Cols, cfg.ZeroSkip, cfg.NoDatapathReset, cfg.MulStage = 3, 4, v.zs, v.noReset, v.mulStage
		t.Run(Name(cfg), func(t *testing.T) {
			dir, d, files := emitDir(t, cfg)
			stat, err := toolchain.Synth(dir, d.Top.Name, files)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stat, PE(cfg).Name) {
				t.Errorf("no PE module in the synthesis report:\n%s", stat)
			}
		})
	}
}

// Module names come from the parameters: the PE and the feeder are
// emitted once however many PEs there are, a different configuration
// gives different names, and the same configuration the same Verilog.
func TestModuleNames(t *testing.T) {
	cfg := DefaultConfig()
	m, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mod := range d.Modules {
		names = append(names, mod.Name)
	}
	want := []string{"sa_feeder_16_s8_u9_zs", "sa_pe_s8_s8_s32_zs", "systolic_16x16_s8_s8_s32_e9_n48_zs"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	files := verilog.Emit(d)
	if len(files) != 4 { // three modules and the file list
		t.Errorf("%d files emitted, want 4", len(files))
	}
	seen := map[string]Config{}
	for _, mod := range []func(*Config){
		func(c *Config) {},
		func(c *Config) { c.Rows = 8 },
		func(c *Config) { c.Cols = 8 },
		func(c *Config) { c.InputSigned = false },
		func(c *Config) { c.WeightWidth = 4 },
		func(c *Config) { c.PsumWidth = 24 },
		func(c *Config) { c.EntryWidth = 10 },
		func(c *Config) { c.CounterWidth = 32 },
		func(c *Config) { c.ZeroSkip = false },
	} {
		c := DefaultConfig()
		mod(&c)
		if prev, dup := seen[Name(c)]; dup {
			t.Errorf("configurations %+v and %+v share the name %s", prev, c, Name(c))
		}
		seen[Name(c)] = c
	}
	m2, _ := Build(cfg)
	again := verilog.Emit(hdl.MustElaborate(m2))
	for i := range files {
		if files[i].Name != again[i].Name || string(files[i].Data) != string(again[i].Data) {
			t.Errorf("%s differs between two builds of the same configuration", files[i].Name)
		}
	}
}
