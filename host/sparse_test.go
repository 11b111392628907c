package host

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// sparseSmall is a 4×4 NPU with a small sparse engine: units units of
// lanes multipliers, entries per buffer set.
func sparseSmall(units, lanes, entries int) npu.Config {
	c := small()
	c.MaxKernel, c.LineDepth, c.ExtAddrWidth = 3, 16, 12
	c.SparseUnits, c.SparseLanes, c.SparseEntries = units, lanes, entries
	c.SparseWeightDepth, c.SparseTableDepth, c.SparseAccDepth = 128, 32, 128
	c.SparseChannels, c.SparseIndexWidth = 4, 5
	return c
}

// wide is c with 8 rows: 64-bit external lines, so records narrower
// than 32 bits share a line.
func wide(c npu.Config) npu.Config {
	c.Rows, c.Cols = 8, 8
	return c
}

// sparseRoomy is c with room for a 20×20 map: 64 rows and columns, 1024
// output pixels, 512 weight records.
func sparseRoomy(c npu.Config) npu.Config {
	c.SparseIndexWidth, c.SparseAccDepth, c.SparseWeightDepth, c.ExtAddrWidth = 6, 1024, 512, 14
	return c
}

// oneBank is c with one accumulator bank per unit.
func oneBank(c npu.Config) npu.Config {
	c.SparseAccBanks = 1
	return c
}

func sparseDraw(r *rand.Rand, n int, zeros float64) []int64 {
	v := make([]int64, n)
	for i := range v {
		if r.Float64() >= zeros {
			v[i] = r.Int64N(255) - 127
		}
	}
	return v
}

type sparseCase struct {
	name          string
	cfg           npu.Config
	conv          sparseconv.Conv
	zeros, wzeros float64
	split         sparseconv.Split
}

// runSparse compiles c for the sparse engine, runs it on the NPU and
// checks the result against the dense golden model and every unit's
// multiplication counter against its non-zero inputs times the non-zero
// weights they meet.
func runSparse(t *testing.T, tc sparseCase, seed uint64) *Result {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	c := tc.conv
	x, w := sparseDraw(r, c.C*c.H*c.W, tc.zeros), sparseDraw(r, c.Cout*c.C*c.KH*c.KW, tc.wzeros)
	p, sp, err := compiler.CompileSparse(tc.cfg, c, x, w, tc.split, "y")
	if err != nil {
		t.Fatal(err)
	}
	want, err := golden.Conv2D(&golden.Tensor{Shape: []int{c.C, c.H, c.W}, Data: x},
		&golden.Tensor{Shape: []int{c.Cout, c.C, c.KH, c.KW}, Data: w}, c.Stride, c.PadH, c.PadW, golden.S(32))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(tc.cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Data, res.Outputs["y"].Data); diff != "" {
		t.Fatalf("(-dense golden +NPU sparse engine):\n%s", diff)
	}
	if len(res.SparseUnits) != len(sp.Units) {
		t.Fatalf("%d sparse unit reports, want %d", len(res.SparseUnits), len(sp.Units))
	}
	for i, u := range res.SparseUnits {
		if u.Mults != uint64(sp.Mults(i)) {
			t.Errorf("unit %d: mults counter %d, want %d", i, u.Mults, sp.Mults(i))
		}
		if len(sp.Units[i].Entries) > 0 && u.Busy == 0 {
			t.Errorf("unit %d: never busy", i)
		}
	}
	t.Logf("%s: %d cycles, units %+v", p.Summary(), res.Cycles, res.SparseUnits)
	return res
}

// Convolutions on the NPU's sparse engine, driven by the task manager
// and the DMA engines, equal the dense golden model: strides, kernels,
// padding, several buffer-set chunks, several passes, records over
// several lines, an all-zero map.
func TestSparseOnNPU(t *testing.T) {
	k3 := sparseconv.Conv{C: 3, H: 10, W: 9, Cout: 5, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}
	for i, tc := range []sparseCase{
		{"k3 pad1 80% zeros, 2 units of 4 lanes", sparseSmall(2, 4, 64), k3, 0.8, 0, sparseconv.Balanced},
		{"k3 pad1 dense, 2 units, chunks swap buffer sets", sparseSmall(2, 4, 16), k3, 0, 0.4, sparseconv.EqualArea},
		{"k3 stride2 50%, 3 units of 2 lanes", sparseSmall(3, 2, 32), sparseconv.Conv{C: 2, H: 9, W: 8, Cout: 3, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1}, 0.5, 0.2, sparseconv.Balanced},
		{"k2 95%, 1 unit", sparseSmall(1, 4, 64), sparseconv.Conv{C: 4, H: 8, W: 8, Cout: 4, KH: 2, KW: 2, Stride: 1}, 0.95, 0, sparseconv.Balanced},
		{"1x1 stride4 all zeros", sparseSmall(2, 2, 8), sparseconv.Conv{C: 1, H: 12, W: 5, Cout: 2, KH: 1, KW: 1, Stride: 4}, 1, 0, sparseconv.EqualArea},
		{"k3 70% on 64-bit lines: three entries a line, chunks of 13", wide(sparseSmall(2, 3, 13)), k3, 0.7, 0.3, sparseconv.Balanced},
		{"k3 pad1 80% zeros, one accumulator bank: each pass waits for the store of the one before", oneBank(sparseSmall(2, 2, 64)), k3, 0.8, 0, sparseconv.Balanced},
		{"k3 dense 20x20, 2 units: chunks 256, 404, both kept for the second pass", sparseRoomy(sparseSmall(2, 4, 1024)), sparseconv.Conv{C: 3, H: 20, W: 20, Cout: 8, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}, 0, 0.3, sparseconv.Balanced},
		{"k3 dense 20x20, 1 unit, 3 passes: chunks 256, 512, 432, passes alternate their order", sparseRoomy(sparseSmall(1, 4, 512)), sparseconv.Conv{C: 3, H: 20, W: 20, Cout: 12, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}, 0, 0.3, sparseconv.Balanced},
	} {
		t.Run(tc.name, func(t *testing.T) { runSparse(t, tc, uint64(i)) })
	}
}

// The same run replays on Verilator with every output identical in
// every cycle: two units at once, two chunks per unit, two passes.
func TestSparseOnNPUCrossCheck(t *testing.T) {
	tooltest.Need(t, "verilator")
	tc := sparseCase{"k3 50%", sparseSmall(2, 2, 24), sparseconv.Conv{C: 2, H: 8, W: 8, Cout: 3, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}, 0.5, 0.2, sparseconv.Balanced}
	res := runSparse(t, tc, 9)
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on %d outputs over %d cycles (build %v, cached %v)", cr.Outputs, cr.Cycles, cr.BuildTime, cr.Cached)
}
