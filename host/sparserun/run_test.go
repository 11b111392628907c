package sparserun

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	hw "github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

func draw(r *rand.Rand, n int, zeros float64) []int64 {
	v := make([]int64, n)
	for i := range v {
		if r.Float64() >= zeros {
			v[i] = int64(r.IntN(255)) - 127
		}
	}
	return v
}

func dense(t *testing.T, c sparseconv.Conv, x, w []int64) []int64 {
	t.Helper()
	y, err := compiler.Conv2DRef(&golden.Tensor{Shape: []int{c.C, c.H, c.W}, Data: x},
		&golden.Tensor{Shape: []int{c.Cout, c.C, c.KH, c.KW}, Data: w}, c.Stride, c.PadH, c.PadW, golden.S(32))
	if err != nil {
		t.Fatal(err)
	}
	return y.Data
}

func small(units, lanes, entries int) hw.Config {
	c := hw.DefaultConfig()
	c.Units, c.Lanes, c.Entries = units, lanes, entries
	c.WeightDepth, c.TableDepth, c.AccDepth = 128, 32, 128
	c.Channels, c.IndexWidth, c.MaxKernel = 4, 5, 3
	return c
}

// checkedRun compiles and runs conv on x and w, and checks the result
// against the dense golden model and every unit's multiplication counter
// against its non-zero inputs times the non-zero weights of their
// channels.
func checkedRun(t *testing.T, cfg hw.Config, c sparseconv.Conv, x, w []int64, split sparseconv.Split) (*sparseconv.Program, *Result) {
	t.Helper()
	p, err := sparseconv.Compile(cfg, c, x, w, split)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(dense(t, c, x, w), res.Output); d != "" {
		t.Fatalf("differs from the dense golden model (-want +got):\n%s", d)
	}
	for u, st := range res.Units {
		if want := uint64(p.Mults(u)); st.Mults != want {
			t.Errorf("unit %d: %d multiplications, want %d", u, st.Mults, want)
		}
		if st.Busy == 0 || st.Stall > st.Busy {
			t.Errorf("unit %d: busy %d, stall %d", u, st.Busy, st.Stall)
		}
	}
	return p, res
}

type runCase struct {
	name          string
	cfg           hw.Config
	conv          sparseconv.Conv
	zeros, wzeros float64
	split         sparseconv.Split
}

func runCases() []runCase {
	k3 := sparseconv.Conv{C: 3, H: 10, W: 9, Cout: 5, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}
	return []runCase{
		{"k3 pad1 80% zeros, 2 units", small(2, 4, 64), k3, 0.8, 0, sparseconv.Balanced},
		{"k3 pad1 dense, 2 units, buffer sets swap", small(2, 4, 16), k3, 0, 0.4, sparseconv.EqualArea},
		{"k3 stride2 50%, 3 units", small(3, 2, 32), sparseconv.Conv{C: 2, H: 9, W: 8, Cout: 3, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1}, 0.5, 0.2, sparseconv.Balanced},
		{"k2 no pad 95%, 1 unit", small(1, 4, 64), sparseconv.Conv{C: 4, H: 8, W: 8, Cout: 4, KH: 2, KW: 2, Stride: 1}, 0.95, 0, sparseconv.Balanced},
		{"1x1 stride4 all zeros", small(2, 2, 8), sparseconv.Conv{C: 1, H: 12, W: 5, Cout: 2, KH: 1, KW: 1, Stride: 4}, 1, 0, sparseconv.EqualArea},
	}
}

// Every run on the Go simulator equals the dense golden model, and each
// unit's multiplication counter equals its non-zero inputs times the
// non-zero weights of their channels.
func TestRunMatchesDense(t *testing.T) {
	for i, tc := range runCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 11))
			c := tc.conv
			x, w := draw(r, c.C*c.H*c.W, tc.zeros), draw(r, c.Cout*c.C*c.KH*c.KW, tc.wzeros)
			_, res := checkedRun(t, tc.cfg, c, x, w, tc.split)
			t.Logf("%d cycles (weights %d), units %+v", res.Cycles, res.WeightCycles, res.Units)
		})
	}
}

// Random sparse convs replay on Verilator with every output and every
// memory word identical, cycle by cycle: two layers (stride 1 with the
// buffer sets swapping, stride 2 with sparse weights) on one build.
func TestRunCrossCheck(t *testing.T) {
	tooltest.Need(t, "verilator")
	cfg := small(2, 4, 16)
	for i, tc := range []struct {
		conv          sparseconv.Conv
		zeros, wzeros float64
	}{
		{sparseconv.Conv{C: 3, H: 10, W: 9, Cout: 5, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}, 0.6, 0.3},
		{sparseconv.Conv{C: 2, H: 11, W: 8, Cout: 6, KH: 3, KW: 2, Stride: 2, PadH: 1, PadW: 0}, 0.7, 0.5},
	} {
		r := rand.New(rand.NewPCG(uint64(i), 11))
		c := tc.conv
		x, w := draw(r, c.C*c.H*c.W, tc.zeros), draw(r, c.Cout*c.C*c.KH*c.KW, tc.wzeros)
		_, res := checkedRun(t, cfg, c, x, w, sparseconv.Balanced)
		vr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{CompareMemories: true})
		if err != nil {
			t.Fatal(fmt.Errorf("cross-check: %w", err))
		}
		t.Logf("verilator agrees on %d outputs for %d cycles (build cached %v)", vr.Outputs, vr.Cycles, vr.Cached)
	}
}
