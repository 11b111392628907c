package compiler

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
)

// sparseNPU is a small NPU with a sparse engine of units units of lanes
// multipliers and entries per buffer set.
func sparseNPU(units, lanes, entries int) npu.Config {
	c := npu.DefaultConfig()
	c.Rows, c.Cols, c.StateDepth, c.PsumDepth, c.WeightDepth = 4, 4, 64, 16, 16
	c.MaxKernel, c.LineDepth, c.ExtAddrWidth = 3, 16, 12
	c.SparseUnits, c.SparseLanes, c.SparseEntries = units, lanes, entries
	c.SparseWeightDepth, c.SparseTableDepth, c.SparseAccDepth = 128, 32, 128
	c.SparseChannels, c.SparseIndexWidth = 4, 5
	return c
}

// roomy is c with room for a 20×20 map: 64 rows and columns, 1024
// output pixels, 512 weight records.
func roomy(c npu.Config) npu.Config {
	c.SparseIndexWidth, c.SparseAccDepth, c.SparseWeightDepth, c.ExtAddrWidth = 6, 1024, 512, 14
	return c
}

func drawSparse(r *rand.Rand, n int, zeros float64) []int64 {
	v := make([]int64, n)
	for i := range v {
		if r.Float64() >= zeros {
			v[i] = int64(r.IntN(255)) - 127
		}
	}
	return v
}

// A convolution compiled for the sparse engine, run by the reference
// machine in program order and in random legal orders, equals the dense
// golden model, and every unit's multiplications equal its non-zero
// inputs times the non-zero weights they meet.
func TestCompileSparseMatchesDense(t *testing.T) {
	k3 := sparseconv.Conv{C: 3, H: 10, W: 9, Cout: 5, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}
	cases := []struct {
		name          string
		cfg           npu.Config
		conv          sparseconv.Conv
		zeros, wzeros float64
		split         sparseconv.Split
	}{
		{"k3 pad1 80% zeros, 2 units, 4 lanes (weight records and sums over several lines)", sparseNPU(2, 4, 64), k3, 0.8, 0, sparseconv.Balanced},
		{"k3 pad1 dense, 2 units, buffer sets swap", sparseNPU(2, 4, 16), k3, 0, 0.4, sparseconv.EqualArea},
		{"k3 stride2 50%, 3 units, 2 lanes", sparseNPU(3, 2, 32), sparseconv.Conv{C: 2, H: 9, W: 8, Cout: 3, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1}, 0.5, 0.2, sparseconv.Balanced},
		{"k2 no pad 95%, 1 unit", sparseNPU(1, 4, 64), sparseconv.Conv{C: 4, H: 8, W: 8, Cout: 4, KH: 2, KW: 2, Stride: 1}, 0.95, 0, sparseconv.Balanced},
		{"1x1 stride4 all zeros", sparseNPU(2, 2, 8), sparseconv.Conv{C: 1, H: 12, W: 5, Cout: 2, KH: 1, KW: 1, Stride: 4}, 1, 0, sparseconv.EqualArea},
		{"k3 dense 20x20, 2 units: chunks 256, 404, both kept for the second pass", roomy(sparseNPU(2, 4, 1024)), sparseconv.Conv{C: 3, H: 20, W: 20, Cout: 8, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}, 0, 0.3, sparseconv.Balanced},
		{"k3 dense 20x20, 1 unit, 3 passes: chunks 256, 512, 432, passes alternate their order", roomy(sparseNPU(1, 4, 512)), sparseconv.Conv{C: 3, H: 20, W: 20, Cout: 12, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1}, 0, 0.3, sparseconv.Balanced},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 17))
			c := tc.conv
			x, w := drawSparse(r, c.C*c.H*c.W, tc.zeros), drawSparse(r, c.Cout*c.C*c.KH*c.KW, tc.wzeros)
			p, sp, err := CompileSparse(tc.cfg, c, x, w, tc.split, "y")
			if err != nil {
				t.Fatal(err)
			}
			want, err := golden.Conv2D(&golden.Tensor{Shape: []int{c.C, c.H, c.W}, Data: x},
				&golden.Tensor{Shape: []int{c.Cout, c.C, c.KH, c.KW}, Data: w}, c.Stride, c.PadH, c.PadW, golden.S(32))
			if err != nil {
				t.Fatal(err)
			}
			got, m, err := Interpret(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Data, got["y"].Data); diff != "" {
				t.Fatalf("program order (-dense +sparse):\n%s", diff)
			}
			for u := range sp.Units {
				if m.Stats.SparseMults[u] != sp.Mults(u) {
					t.Errorf("unit %d: %d multiplications, want %d", u, m.Stats.SparseMults[u], sp.Mults(u))
				}
			}
			acc, err := TraceAccesses(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckSpans(p, acc); err != nil {
				t.Fatal(err)
			}
			if err := CheckDeps(p, acc); err != nil {
				t.Fatal(err)
			}
			for k := range 3 {
				got, _, err := InterpretOrder(p, RandomOrder(p, rand.New(rand.NewPCG(uint64(k), 5))))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.Data, got["y"].Data); diff != "" {
					t.Fatalf("random order %d (-dense +sparse):\n%s", k, diff)
				}
			}
		})
	}
}

// The sparse engine's errors name what is wrong.
func TestCompileSparseErrors(t *testing.T) {
	conv := sparseconv.Conv{C: 1, H: 4, W: 4, Cout: 1, KH: 1, KW: 1, Stride: 1}
	x, w := make([]int64, 16), []int64{1}
	if _, _, err := CompileSparse(npu.DefaultConfig(), conv, x, w, sparseconv.Balanced, "y"); err == nil || !strings.Contains(err.Error(), "sparse_units = 0") {
		t.Errorf("no sparse engine: error %v, want one naming sparse_units", err)
	}
	big := sparseconv.Conv{C: 1, H: 40, W: 40, Cout: 1, KH: 1, KW: 1, Stride: 1}
	if _, _, err := CompileSparse(sparseNPU(1, 2, 8), big, make([]int64, 1600), w, sparseconv.Balanced, "y"); err == nil || !strings.Contains(err.Error(), "index_width") {
		t.Errorf("a map wider than index_width: error %v", err)
	}
}
