package planar

import (
	isaplanar "github.com/hwgen/hwgen/isa/planar"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/emittest"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verilog"
)

// emitDir writes cfg's engine as Verilog into a temporary directory.
func emitDir(t testing.TB, c Config) (string, *hdl.Design, []string) {
	t.Helper()
	m, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	return emittest.Dir(t, m)
}

// Every shape lints clean with verilator -Wall (the corners: one lane,
// fewer psum lanes, unsigned narrow elements, the smallest kernel limit,
// a one-entry line buffer, a line buffer widened for column sums, the
// default) and compiles under Icarus.
func TestLint(t *testing.T) {
	tooltest.Need(t, "verilator")
	one := Config{Sizes: isaplanar.Sizes{Lanes: 1, PsumLanes: 1, ElemWidth: 2, ElemSigned: false, AccWidth: 8, ScaleWidth: 2,
		StateDepth: 2, PsumDepth: 2, MaxKernel: 2, LineDepth: 1}}
	wide := Config{Sizes: isaplanar.Sizes{Lanes: 3, PsumLanes: 2, ElemWidth: 16, ElemSigned: true, AccWidth: 40, ScaleWidth: 20,
		StateDepth: 64, PsumDepth: 1024, MaxKernel: 5, LineDepth: 100}}
	noReset := smallConfig()
	noReset.NoDatapathReset = true
	deepOne, deepWide := deep(one), deep(wide)
	deepWide.NoDatapathReset = true
	// The table's corners: lanes not dividing 2^E (a row past the end),
	// more lanes than entries (one row, lanes without a write port),
	// the smallest table in a buffer too shallow for it, deep_pipeline
	// without reset.
	lutThree := Config{Sizes: isaplanar.Sizes{Lanes: 3, PsumLanes: 2, ElemWidth: 5, ElemSigned: true, AccWidth: 12, ScaleWidth: 4,
		StateDepth: 32, PsumDepth: 8, MaxKernel: 2, LineDepth: 4, LUT: true}}
	lutWide := Config{Sizes: isaplanar.Sizes{Lanes: 8, PsumLanes: 4, ElemWidth: 2, AccWidth: 8, ScaleWidth: 2,
		StateDepth: 4, PsumDepth: 2, MaxKernel: 2, LineDepth: 1, LUT: true}}
	lutOne := one // its 4 entries in 4 rows of a 2-deep buffer: never loaded, still built
	lutOne.LUT = true
	deepLUT := deep(withLUT(unsignedConfig()))
	deepLUT.NoDatapathReset = true
	for _, c := range []Config{smallConfig(), unsignedConfig(), one, wide, noReset, wideColumnConfig(), DefaultConfig(), deepOne, deepWide,
		lutThree, lutWide, lutOne, deepLUT,
		// fewer post units than lanes: 1 and 2 of 4, 1 of 3 (a table
		// row past the end), 2 of 8 with more lanes than entries
		withUnits(lutConfig(), 1), withUnits(lutConfig(), 2), withUnits(deep(noReset), 2), withUnits(lutThree, 1), withUnits(lutWide, 2),
		// the minimal engines: no optional feature, no table
		without(one, allFeatures()...), deep(without(wide, allFeatures()...)), withUnits(without(smallConfig(), allFeatures()...), 1),
		without(smallConfig(), allFeatures()...),
		// the second read port: one lane, passes with deep_pipeline
		withSrc2(one), withSrc2(withUnits(deep(noReset), 2)), withSrc2(lutThree),
		withSrc2(without(smallConfig(), "eltwise_mul", "reduce", "postfn"))} {
		t.Run(Name(c), func(t *testing.T) {
			dir, d, files := emitDir(t, c)
			if err := toolchain.Lint(dir, d.Top.Name, files); err != nil {
				t.Fatal(err)
			}
			t.Run("icarus", func(t *testing.T) {
				tooltest.Need(t, "iverilog")
				if err := toolchain.Icarus(dir, d.Top.Name, files); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// A small configuration synthesizes with Yosys without a latch, a
// combinational loop or a driver conflict; with fewer post units than
// lanes too (1 of 2, 2 of 4, 1 of 4 with deep_pipeline); without any
// optional feature on 2 and 4 lanes, 1 of 2 with deep_pipeline, and the
// small configuration's 4 lanes of 8-bit elements (the Verilator
// cross-check's); with the second read port on 2 lanes and 2 of 4 with
// deep_pipeline.
func TestSynth(t *testing.T) {
	tooltest.Need(t, "yosys")
	for _, v := range []struct {
		noReset, deep, lut, minimal bool
		units, lanes                int
		src2                        bool
	}{{lanes: 2, src2: true}, {deep: true, lut: true, units: 2, lanes: 4, src2: true},
		{false, false, false, false, 0, 2, false}, {true, false, false, false, 0, 2, false}, {false, true, false, false, 0, 2, false}, {false, false, true, false, 0, 2, false},
		{false, false, true, false, 1, 2, false}, {false, false, true, false, 2, 4, false}, {false, true, false, false, 1, 4, false},
		{false, false, false, true, 0, 2, false}, {false, true, false, true, 1, 2, false}, {false, false, false, true, 0, 4, false}, {}} {
		c := Config{Sizes: isaplanar.Sizes{Lanes: v.lanes, PsumLanes: 2, ElemWidth: 4, ElemSigned: true, AccWidth: 8, ScaleWidth: 4,
			StateDepth: 16, PsumDepth: 8, MaxKernel: 3, LineDepth: 4, LUT: v.lut, PostLanes: v.units}, NoDatapathReset: v.noReset, DeepPipeline: v.deep, Src2Port: v.src2}
		if v.minimal { // no optional feature
			c = without(c, allFeatures()...)
		}
		if v.lanes == 0 { // the engine TestCrossCheckFeaturesLeftOut runs on Verilator
			c = without(smallConfig(), allFeatures()...)
		}
		dir, _, files := emitDir(t, c)
		stat, err := toolchain.Synth(dir, Name(c), files)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stat, laneName(c)) {
			t.Errorf("no lane module in the synthesis report:\n%s", stat)
		}
	}
}

// Module names come from the parameters: the lane is emitted once however
// many lanes there are, every parameter changes the name, and the same
// configuration gives the same Verilog.
func TestModuleNames(t *testing.T) {
	c := DefaultConfig()
	m, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	d := hdl.MustElaborate(m)
	var names []string
	for _, mod := range d.Modules {
		names = append(names, mod.Name)
	}
	want := []string{"planar_lane_s8_a32_sc16_d4096_k8_lut", "planar_linebuf_64x84", "planar_lut_256x8_r16", "planar_16x16_s8_s32_sc16_d4096_p512_k8_l64_lut"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	seen := map[string]Config{}
	for _, mod := range []func(*Config){
		func(c *Config) {},
		func(c *Config) { c.Lanes = 8 },
		func(c *Config) { c.PsumLanes = 8 },
		func(c *Config) { c.ElemWidth = 6 },
		func(c *Config) { c.ElemSigned = false },
		func(c *Config) { c.AccWidth = 24 },
		func(c *Config) { c.ScaleWidth = 8 },
		func(c *Config) { c.StateDepth = 2048 },
		func(c *Config) { c.PsumDepth = 256 },
		func(c *Config) { c.MaxKernel = 4 },
		func(c *Config) { c.LineDepth = 32 },
		func(c *Config) { c.LUT = false },
		func(c *Config) { c.Src2Port = true },
	} {
		c := DefaultConfig()
		mod(&c)
		if prev, dup := seen[Name(c)]; dup {
			t.Errorf("configurations %+v and %+v share the name %s", prev, c, Name(c))
		}
		seen[Name(c)] = c
	}
	files := verilog.Emit(d)
	m2, _ := Build(c)
	again := verilog.Emit(hdl.MustElaborate(m2))
	for i := range files {
		if files[i].Name != again[i].Name || string(files[i].Data) != string(again[i].Data) {
			t.Errorf("%s differs between two builds of the same configuration", files[i].Name)
		}
	}
}

// The task port is exactly the descriptor's fields, and the memory ports
// match the buffer clients of blocks/sram name for name and width for
// width (checked by the test top, which connects them), so here: the
// port list.
func TestPorts(t *testing.T) {
	c := smallConfig()
	m, _ := Build(c)
	got := map[string]string{}
	for _, p := range m.Ports {
		got[p.Name] = p.Kind.String() + " " + p.Type.String()
	}
	want := map[string]string{
		"t_valid": "input UInt(1)", "t_ready": "output UInt(1)", "busy": "output UInt(1)", "done": "output UInt(1)",
		"error": "output UInt(1)", "err_code": "output UInt(4)",
		"plr_valid": "output UInt(1)", "plr_addr": "output UInt(8)", "plr_mask": "output UInt(4)",
		"plr_ready": "input UInt(1)", "plr_rvalid": "input UInt(1)", "plr_rdata_3": "input UInt(8)",
		"plw_valid": "output UInt(1)", "plw_addr": "output UInt(8)", "plw_mask": "output UInt(4)",
		"plw_ready": "input UInt(1)", "plw_wdata_3": "output UInt(8)",
		"rd_valid": "output UInt(1)", "rd_addr": "output UInt(6)", "rd_mask": "output UInt(3)",
		"rd_ready": "input UInt(1)", "rd_rvalid": "input UInt(1)", "rd_data_2": "input SInt(20)",
		"t_scale": "input SInt(10)", "t_bias": "input SInt(20)", "t_shift": "input UInt(5)", "t_oh": "input UInt(9)",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("port %s: %q, want %q", name, got[name], w)
		}
	}
	if _, ok := got["rd_data_3"]; ok {
		t.Error("lane 3 has no psum partition but a rd_data_3 port")
	}
	for _, name := range []string{"plr2_valid", "plr2_addr", "plr2_mask", "plr2_rdata_0"} {
		if _, ok := got[name]; ok {
			t.Errorf("%s without src2_port", name)
		}
	}
	m2, _ := Build(withSrc2(c))
	got2 := map[string]string{}
	for _, p := range m2.Ports {
		got2[p.Name] = p.Kind.String() + " " + p.Type.String()
	}
	want2 := map[string]string{"plr2_valid": "output UInt(1)", "plr2_addr": "output UInt(8)", "plr2_mask": "output UInt(4)",
		"plr2_rdata_0": "input UInt(8)", "plr2_rdata_3": "input UInt(8)", "plr2_ready": "", "plr2_rvalid": ""}
	for name, w := range want2 {
		if got2[name] != w {
			t.Errorf("src2_port: port %s: %q, want %q", name, got2[name], w)
		}
	}
	for _, f := range c.Fields() {
		if got["t_"+f.Name] != "input "+fieldType(f).String() {
			t.Errorf("descriptor field %s: port %q", f.Name, got["t_"+f.Name])
		}
	}
}
