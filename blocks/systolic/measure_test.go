package systolic

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/verilog"
)

// refPE is the minimal reference PE for the cell-count goal, written by
// hand in the obvious way: the element and psum pipeline registers, one
// stationary weight register with a load enable, an 8×8→16 multiplier
// and a 32-bit adder. (Writing the product straight into the sum,
// refPEMacc, lets Yosys merge both into one $macc cell that it maps to
// about 50% more cells; that form would flatter the ratio.)
const refPE = `module ref_pe (
  input clk, input rst,
  input signed [7:0] x_in, input signed [31:0] p_in, input signed [7:0] w_in, input load,
  output reg signed [7:0] x_out, output reg signed [31:0] p_out);
  reg signed [7:0] w;
  wire signed [15:0] prod = x_out * w;
  always @(posedge clk)
    if (rst) begin x_out <= 0; p_out <= 0; w <= 0; end
    else begin
      x_out <= x_in;
      p_out <= p_in + {{16{prod[15]}}, prod};
      if (load) w <= w_in;
    end
endmodule
`

// refPE2 is refPE plus the second weight register (the shadow weight,
// copied into the active one on a swap): the base of the budget.
const refPE2 = `module ref_pe (
  input clk, input rst,
  input signed [7:0] x_in, input signed [31:0] p_in, input signed [7:0] w_in, input load, input swap,
  output reg signed [7:0] x_out, output reg signed [31:0] p_out);
  reg signed [7:0] w, wsh;
  wire signed [15:0] prod = x_out * w;
  always @(posedge clk)
    if (rst) begin x_out <= 0; p_out <= 0; w <= 0; wsh <= 0; end
    else begin
      x_out <= x_in;
      p_out <= p_in + {{16{prod[15]}}, prod};
      if (load) wsh <= w_in;
      if (swap) w <= wsh;
    end
endmodule
`

const refPEMacc = `module ref_pe (
  input clk, input rst,
  input signed [7:0] x_in, input signed [31:0] p_in, input signed [7:0] w_in, input load,
  output reg signed [7:0] x_out, output reg signed [31:0] p_out);
  reg signed [7:0] w;
  always @(posedge clk)
    if (rst) begin x_out <= 0; p_out <= 0; w <= 0; end
    else begin
      x_out <= x_in;
      p_out <= p_in + x_out * w;
      if (load) w <= w_in;
    end
endmodule
`

var cellsRE = regexp.MustCompile(`Number of cells:\s+(\d+)`)

// cells is the total cell count of a Yosys stat report: the last
// "Number of cells" line, which for a hierarchy is the design total.
func cells(t *testing.T, stat string) int {
	t.Helper()
	m := cellsRE.FindAllStringSubmatch(stat, -1)
	if len(m) == 0 {
		t.Fatalf("no cell count in:\n%s", stat)
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

func synthText(t *testing.T, src string) int {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ref_pe.v"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	stat, err := toolchain.Synth(dir, "ref_pe", []string{"ref_pe.v"})
	if err != nil {
		t.Fatal(err)
	}
	return cells(t, stat)
}

func synthModule(t *testing.T, m *hdl.Module) int {
	t.Helper()
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "rtl")
	files := verilog.Emit(d)
	if err := verilog.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files[:len(files)-1] {
		names = append(names, f.Name)
	}
	stat, err := toolchain.Synth(dir, d.Top.Name, names)
	if err != nil {
		t.Fatal(err)
	}
	return cells(t, stat)
}

// TestMeasure prints the figures of BENCHMARKS.md:
//
//	HWGEN_MEASURE=1 go test ./blocks/systolic -run TestMeasure -v
func TestMeasure(t *testing.T) {
	tooltest.SkipUnlessEnv(t, "HWGEN_MEASURE", "measure (Yosys on the 16x16 array, long Go-sim runs)")
	tooltest.Need(t, "yosys")
	cfg := DefaultConfig()
	dense := cfg
	dense.ZeroSkip = false
	n := cfg.Rows * cfg.Cols

	ref, ref2, refMacc := synthText(t, refPE), synthText(t, refPE2), synthText(t, refPEMacc)
	budget := 1.15 * float64(ref2)
	pe, peDense := synthModule(t, PE(cfg)), synthModule(t, PE(dense))
	m, _ := Build(cfg)
	md, _ := Build(dense)
	arr, arrDense := synthModule(t, m), synthModule(t, md)

	var b strings.Builder
	fmt.Fprintf(&b, "### Yosys cells per PE, int8 × int8 → int32 (`synth`, hierarchy kept; goal ≤ 1.15 × (minimal PE + second weight register) = %.0f)\n\n", budget)
	fmt.Fprintf(&b, "| design | cells | per PE | vs minimal + 2nd weight reg (%d) |\n|---|---:|---:|---:|\n", ref2)
	row := func(name string, total, per int) {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.3f× |\n", name, total, float64(total)/float64(per), float64(total)/float64(per)/float64(ref2))
	}
	row("minimal reference PE (hand-written: x, w, psum registers, multiplier, adder)", ref, 1)
	row("minimal reference PE + second weight register", ref2, 1)
	row("minimal reference PE written `p + x*w` (Yosys merges into one $macc)", refMacc, 1)
	row("`"+PE(cfg).Name+"` (PE module, zero skipping)", pe, 1)
	row("`"+PE(dense).Name+"` (PE module, no zero skipping)", peDense, 1)
	row(fmt.Sprintf("`%s` (whole array ÷ %d: skew, deskew, load path, tags, counters, feeder)", Name(cfg), n), arr, n)
	row(fmt.Sprintf("`%s` (whole array ÷ %d)", Name(dense), n), arrDense, n)
	fmt.Fprintln(&b)

	// Cycles for N back-to-back 16×16×16 tiles on the Go simulator.
	h := newHarness(t, cfg)
	fmt.Fprintf(&b, "### N back-to-back 16×16×16 tiles (new weights every tile), Go simulator\n\n")
	fmt.Fprintf(&b, "| N | ideal N·16 | first input → last output | idle input cycles | weight load → last output | efficiency |\n|---:|---:|---:|---:|---:|---:|\n")
	var last *result
	for _, N := range []int{1, 2, 4, 8, 16, 64} {
		rng := rand.New(rand.NewPCG(uint64(N), 1))
		var tiles []tile
		for k := 0; k < N; k++ {
			tiles = append(tiles, tile{w: randMatrix(rng, 16, 16, intOf(cfg.WeightType()), 0),
				x: randMatrix(rng, 16, 16, intOf(cfg.InputType()), 0), entry: 16 * k})
		}
		p := makePlan(t, cfg, tiles)
		res := h.run(t, p, 1)
		checkRun(t, p, res, cfg)
		last = res
		first, last := -1, 0
		idle := 0
		for c, bt := range p.beats {
			if bt.vec != nil {
				if first < 0 {
					first = c
				}
				last = c
			}
		}
		for c := first; c <= last; c++ {
			if p.beats[c].vec == nil {
				idle++
			}
		}
		end := res.outs[len(res.outs)-1].Cycle
		span := end - first + 1 // cycles from the first input to the last output, both included
		fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %.1f%% |\n", N, 16*N, span, idle, end+1, 100*float64(16*N)/float64(span))
	}
	// Raw simulator speed on the longest run: its recorded stimulus
	// replayed with Poke and Step only.
	st := last.drv.Stimulus()
	s, err := sim.New(h.d)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for _, row := range st.Rows {
		for i, p := range st.Inputs {
			if err := s.Poke(p.Name, row[i].Uint64()); err != nil {
				t.Fatal(err)
			}
		}
		s.Step(1)
	}
	speed := float64(st.Cycles()) / time.Since(t0).Seconds()
	fmt.Fprintf(&b, "\nFirst input → last output = N·16 + R + C = N·16 + 32 cycles, both ends counted (the last output leaves R+C cycles after the last input); tile 0's weights load from cycle 0 and its first vector enters in cycle 1. Go simulator speed on the 16×16 array (stimulus of the N=64 run replayed with Poke/Step): %.0f cycles/s.\n", speed)
	fmt.Println(b.String())
}
