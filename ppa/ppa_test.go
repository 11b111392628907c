package ppa

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/systolic"
	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verilog"
)

func macDesign(t *testing.T) *hdl.Design {
	ex, err := examples.Lookup("mac")
	if err != nil {
		t.Fatal(err)
	}
	return hdl.MustElaborate(ex.Build())
}

func systolic2x2(t *testing.T) *hdl.Design {
	c := systolic.DefaultConfig()
	c.Rows, c.Cols = 2, 2
	m, err := systolic.Build(c)
	if err != nil {
		t.Fatal(err)
	}
	return hdl.MustElaborate(m)
}

// signalNames are the names of every port, register and wire of every
// module of d: a path's ends must be among them.
func signalNames(d *hdl.Design) map[string]bool {
	names := map[string]bool{}
	for _, m := range d.Modules {
		for _, s := range m.Signals {
			names[s.Name] = true
		}
		for _, p := range m.Ports {
			names[p.Name] = true
		}
	}
	return names
}

// leaf is a hierarchical bit name's signal: "pe_1_1.p[31]" is p.
func leaf(s string) string {
	s, _, _ = strings.Cut(s, "[")
	return s[strings.LastIndexByte(s, '.')+1:]
}

// TestMeasure synthesizes two small designs for the generic target and
// places and routes them on an iCE40 HX8K (one seed): the figures are
// there and plausible, and the critical path is named in the design's
// signals.
func TestMeasure(t *testing.T) {
	tooltest.Need(t, "yosys")
	cases := []struct {
		name   string
		design func(*testing.T) *hdl.Design
		target string
	}{
		{"mac generic", macDesign, Generic},
		{"mac ice40-hx8k", macDesign, "ice40-hx8k"},
		// The 2×2 array takes about 6 s to place and route: generic only.
		{"systolic 2x2 generic", systolic2x2, Generic},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.target != Generic {
				tooltest.Need(t, "nextpnr-ice40")
			}
			d := tc.design(t)
			r, err := Measure(d, Options{Target: tc.target, Seeds: 1, FreqMHz: 100, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if r.Design != d.Top.Name || r.Cells <= 0 || r.FFs <= 0 {
				t.Errorf("%+v: want the design's name, cells and flip-flops", r)
			}
			// Every design here has its result registers: at least the
			// accumulator (mac) or the psum outputs' bits.
			if r.FFs < 32 {
				t.Errorf("%d flip-flops, want at least 32", r.FFs)
			}
			if tc.target == Generic {
				if r.LogicDepth < 8 || r.LogicDepth > 1000 {
					t.Errorf("logic depth %d gates: not plausible for an 8×8 multiply and a 32-bit add", r.LogicDepth)
				}
			} else {
				if r.LUTs <= 0 || r.LCsUsed < r.LUTs || r.LCsAvailable != Devices[tc.target].LCs {
					t.Errorf("LUT4 %d, logic cells %d of %d: want LUTs > 0 placed in at least as many cells of the %d", r.LUTs, r.LCsUsed, r.LCsAvailable, Devices[tc.target].LCs)
				}
				// An iCE40 LUT is about 0.5 ns plus routing: a multiply-add
				// lands between a few and a few hundred MHz.
				if r.FmaxMHz < 5 || r.FmaxMHz > 500 || len(r.SeedFmaxMHz) != 1 {
					t.Errorf("Fmax %.1f MHz (seeds %v): not plausible", r.FmaxMHz, r.SeedFmaxMHz)
				}
			}
			p := r.Critical
			if p == nil || p.Levels <= 0 {
				t.Fatalf("critical path %+v: want one with logic on it", p)
			}
			names := signalNames(d)
			for _, end := range []string{p.From, p.To} {
				if !names[leaf(end)] {
					t.Errorf("critical path %s -> %s: %q is not a signal of %s", p.From, p.To, end, d.Top.Name)
				}
			}
		})
	}
}

// TestNotFit: a design larger than the device is refused by the resource
// it overflows, before place and route.
func TestNotFit(t *testing.T) {
	tooltest.Need(t, "yosys")
	tooltest.Need(t, "nextpnr-ice40")
	// A device with a quarter of the logic cells the mac's LUTs need.
	dev := Devices["ice40-hx8k"]
	dev.Name, dev.LCs = "tiny", 100
	Devices["tiny"] = dev
	defer delete(Devices, "tiny")
	_, err := Measure(macDesign(t), Options{Target: "tiny", Seeds: 1, FreqMHz: 100, Dir: t.TempDir()})
	nf, ok := err.(*NotFitError)
	if !ok || nf.Available != 100 || nf.Needed <= 100 || !strings.Contains(nf.Error(), "logic cells") || !strings.Contains(nf.Error(), "over by") {
		t.Fatalf("got %v, want a NotFitError on tiny's 100 logic cells", err)
	}
}

// TestWrapper: the wrapper feeds every input bit from one shift register
// and captures every output bit, and leaves clk and rst to pins.
func TestWrapper(t *testing.T) {
	w := Wrapper(macDesign(t))
	// mac: inputs a[8], b[8], en, clear = 18 bits; output y[32].
	for _, want := range []string{
		"reg  [18:0] in_sr;", "in_sr <= {in_sr[17:0], din};",
		".a(in_sr[7:0])", ".b(in_sr[15:8])", ".en(in_sr[16:16])", ".clear(in_sr[17:17])",
		".y(out_w[31:0])", "reg  [32:0] out_q;", "out_q <= out_w;", ".clk(clk)", ".rst(rst)",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("wrapper lacks %q:\n%s", want, w)
		}
	}
}

// TestNotFitLog: nextpnr's placer overflow names the resource and the
// count; other errors are not taken for it.
func TestNotFitLog(t *testing.T) {
	dev := Devices["ice40-hx8k"]
	cases := []struct {
		log  string
		want string // "" for not a NotFitError
	}{
		{"Info: x\nERROR: Failed to expand region (0, 0) |_> (33, 33) of 7895 ICESTORM_LCs\n", "does not fit ice40-hx8k: needs 7895 ICESTORM_LC (with the wrapper), the device has 7680 (over by 215)"},
		{"ERROR: Failed to expand region (0, 0) |_> (33, 33) of 40 ICESTORM_RAMs\n", "does not fit ice40-hx8k: needs 40 ICESTORM_RAM (with the wrapper), the device has 32 (over by 8)"},
		{"ERROR: Unable to place cell 'x', no BELs remaining to implement cell type 'SB_IO'\n", "does not fit ice40-hx8k: Unable to place cell 'x', no BELs remaining to implement cell type 'SB_IO'"},
		{"ERROR: net 'x' has multiple drivers\n", ""},
		// The utilisation table says by how much where the error does not.
		{"Info: Device utilisation:\nInfo: \t         ICESTORM_LC: 11514/ 7680   149%\nInfo: \t        ICESTORM_RAM:     4/   32    12%\n" +
			"ERROR: Unable to place cell 'dut.x_LC', no BELs remaining to implement cell type 'ICESTORM_LC'\n",
			"does not fit ice40-hx8k: needs 11514 ICESTORM_LC (with the wrapper), the device has 7680 (over by 3834)"},
		// A full table without an error is a design that fits.
		{"Info: \t         ICESTORM_LC:  7680/ 7680   100%\n", ""},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "pnr.log"), []byte(tc.log), 0o644); err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := notFit(dev, dir, "pnr.log", ""); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("log %q: got %q, want %q", tc.log, got, tc.want)
		}
	}
}

// TestBreakdown splits the 2×2 array by its instances, on both kinds of
// synthesis: every instance once, the top's own logic too, identical PEs
// alike, and the parts adding up to Yosys's own total of the hierarchy.
func TestBreakdown(t *testing.T) {
	tooltest.Need(t, "yosys")
	d := systolic2x2(t)
	for _, target := range []string{Generic, "ice40-hx8k"} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			var files []string
			for _, f := range verilog.Emit(d) {
				if strings.HasSuffix(f.Name, ".v") {
					files = append(files, f.Name)
					if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			parts, err := breakdown(d, files, Options{Target: target, Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{TopPart: true}
			for _, in := range d.Top.Insts {
				want[in.Name] = true
			}
			got := map[string]bool{}
			sum := Part{}
			pes := map[Part]bool{}
			for _, p := range parts {
				got[p.Instance] = true
				sum.Cells += p.Cells
				sum.FFs += p.FFs
				if strings.HasPrefix(p.Instance, "pe_") {
					p.Instance = ""
					pes[p] = true
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("instances (-want +got):\n%s", diff)
			}
			if len(pes) != 1 {
				t.Errorf("the four PEs differ: %v", pes)
			}
			b, err := os.ReadFile(filepath.Join(dir, "parts.json"))
			if err != nil {
				t.Fatal(err)
			}
			var st struct {
				Design stat `json:"design"`
			}
			if err := json.Unmarshal(statJSON(b), &st); err != nil {
				t.Fatal(err)
			}
			if sum.Cells != st.Design.Cells || sum.FFs != st.Design.flipFlops() || sum.FFs == 0 {
				t.Errorf("parts add up to %d cells and %d flip-flops, Yosys's hierarchy to %d and %d", sum.Cells, sum.FFs, st.Design.Cells, st.Design.flipFlops())
			}
		})
	}
}
