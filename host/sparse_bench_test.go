package host

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/workload"
)

// benchWorkload is the BENCHMARKS.md layer: conv 32×48×48 → 32, 3×3, pad
// 1, the zeros in x only (dense weights), as `hwgen sim --op conv2d
// --zeros Z --spread S` draws it.
func benchWorkload(zeros int, spread string) (workload.Workload, map[string]*golden.Tensor) {
	pad := 1
	w := workload.Workload{Op: "conv2d", C: 32, H: 48, W: 48, Cout: 32, Kernel: 3, Stride: 1, Pad: &pad,
		Zeros: zeros, Spread: spread, Seed: 1}.WithDefaults()
	return w, w.RandomInputs(nil)
}

// sparseBenchNPU is the default NPU with a sparse engine of units ×
// lanes (the engine's default sizes) and room in external memory for a
// dense map's entries, one line each.
func sparseBenchNPU(units, lanes int) npu.Config {
	c := npu.DefaultConfig()
	c.SparseUnits, c.SparseLanes, c.ExtAddrWidth = units, lanes, 18
	return c
}

// benchSparse runs w on the sparse engine of cfg and checks it against
// the golden model.
func benchSparse(t *testing.T, cfg npu.Config, w workload.Workload, in map[string]*golden.Tensor, split sparseconv.Split) (*sparseconv.Program, *Result) {
	t.Helper()
	conv := sparseconv.Conv{C: w.C, H: w.H, W: w.W, Cout: w.Cout, KH: w.Kernel, KW: w.Kernel, Stride: w.Stride, PadH: *w.Pad, PadW: *w.Pad}
	p, sp, err := compiler.CompileSparse(cfg, conv, in["x"].Data, in["w"].Data, split, "y")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(cfg, p, WithoutStimulus())
	if err != nil {
		t.Fatal(err)
	}
	want, err := golden.Conv2D(in["x"], in["w"], conv.Stride, conv.PadH, conv.PadW, golden.S(32))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Data, res.Outputs["y"].Data); diff != "" {
		t.Fatalf("(-golden +sparse engine):\n%s", diff)
	}
	for i, u := range res.SparseUnits {
		if u.Mults != uint64(sp.Mults(i)) {
			t.Fatalf("unit %d: mults %d, want %d", i, u.Mults, sp.Mults(i))
		}
	}
	return sp, res
}

func pctOf(a uint64, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// TestSparseTables prints the BENCHMARKS.md tables "Sparse engine": the
// sparse engine as an engine of the NPU, loaded by dma_in and read out
// by dma_out under the task manager. It takes minutes: SPARSE_BENCH=1
// runs it.
//
//	SPARSE_BENCH=1 go test ./host -run TestSparseTables -v -timeout 2h
func TestSparseTables(t *testing.T) {
	tooltest.SkipUnlessEnv(t, "SPARSE_BENCH", "run the sparse-engine tables (minutes)")
	fmt.Println("| input zeros | dense NE (16×16 = 256 MACs) | sparse 4×16 = 64 mults | vs NE | sparse 8×32 = 256 mults | vs NE | 8×32 cycles / its 0% cycles |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|")
	var base int
	for _, z := range []int{0, 50, 80, 90, 95} {
		w, in := benchWorkload(z, "input")
		g, err := w.Graph(in)
		if err != nil {
			t.Fatal(err)
		}
		cfg := npu.DefaultConfig()
		prog, err := compiler.Compile(cfg, g)
		if err != nil {
			t.Fatal(err)
		}
		dr, err := Run(cfg, prog, WithoutStimulus())
		if err != nil {
			t.Fatal(err)
		}
		_, small := benchSparse(t, sparseBenchNPU(4, 16), w, in, sparseconv.Balanced)
		_, big := benchSparse(t, sparseBenchNPU(8, 32), w, in, sparseconv.Balanced)
		if z == 0 {
			base = big.Cycles
		}
		fmt.Printf("| %d%% | %d | %d | %.2f× | %d | %.2f× | %.3f |\n", z, dr.Cycles, small.Cycles, float64(dr.Cycles)/float64(small.Cycles),
			big.Cycles, float64(dr.Cycles)/float64(big.Cycles), float64(big.Cycles)/float64(base))
	}

	fmt.Println()
	fmt.Println("| input map | units | split | imbalance (non-zeros) | cycles | speed-up over 1 unit | of m× | unit busy |")
	fmt.Println("|---|---:|---|---:|---:|---:|---:|---|")
	for _, mc := range []struct {
		zeros  int
		spread string
	}{{80, "input"}, {50, "skewed"}, {80, "skewed"}} {
		w, in := benchWorkload(mc.zeros, mc.spread)
		name := fmt.Sprintf("%d%% zeros, %s", mc.zeros, map[string]string{"input": "uniform", "skewed": "skewed"}[mc.spread])
		_, one := benchSparse(t, sparseBenchNPU(1, 16), w, in, sparseconv.Balanced)
		fmt.Printf("| %s | 1 | — | — | %d | 1.00 | — | %.0f%% |\n", name, one.Cycles, pctOf(one.SparseUnits[0].Busy, one.Cycles))
		for _, m := range []int{2, 4, 8} {
			for _, split := range []sparseconv.Split{sparseconv.EqualArea, sparseconv.Balanced} {
				p, r := benchSparse(t, sparseBenchNPU(m, 16), w, in, split)
				var busy string
				for i, u := range r.SparseUnits {
					if i > 0 {
						busy += "/"
					}
					busy += fmt.Sprintf("%.0f", pctOf(u.Busy, r.Cycles))
				}
				grid := ""
				if p.Plan.Cols > 1 {
					grid = fmt.Sprintf(" (%d×%d grid)", p.Plan.Rows, p.Plan.Cols)
				}
				sp := float64(one.Cycles) / float64(r.Cycles)
				fmt.Printf("| %s | %d | %s%s | %.1f%% | %d | %.2f | %.0f%% | %s%% |\n", name, m, split, grid,
					100*p.Plan.Balance.Imbalance, r.Cycles, sp, 100*sp/float64(m), busy)
			}
		}
	}
}
