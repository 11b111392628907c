package sparserun

import (
	"fmt"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	hw "github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// benchWorkload is the BENCHMARKS.md layer: conv 32×48×48 → 32, 3×3, pad
// 1, the zeros in x only (dense weights), as `hwgen sim --op conv2d
// --zeros Z --spread S` draws it.
func benchWorkload(zeros int, spread string) (compiler.Workload, map[string]*golden.Tensor) {
	pad := 1
	w := compiler.Workload{Op: "conv2d", C: 32, H: 48, W: 48, Cout: 32, Kernel: 3, Stride: 1, Pad: &pad,
		Zeros: zeros, Spread: spread, Seed: 1}.WithDefaults()
	return w, w.RandomInputs(nil)
}

func sparseRun(t *testing.T, cfg hw.Config, w compiler.Workload, in map[string]*golden.Tensor, split sparseconv.Split) (*sparseconv.Program, *Result) {
	t.Helper()
	conv := sparseconv.Conv{C: w.C, H: w.H, W: w.W, Cout: w.Cout, KH: w.Kernel, KW: w.Kernel, Stride: w.Stride, PadH: *w.Pad, PadW: *w.Pad}
	return checkedRun(t, cfg, conv, in["x"].Data, in["w"].Data, split)
}

func engine(units, lanes int) hw.Config {
	c := hw.DefaultConfig()
	c.Units, c.Lanes = units, lanes
	return c
}

// TestSparseTables prints the BENCHMARKS.md tables "Sparse engine". It
// takes minutes: SPARSE_BENCH=1 runs it.
//
//	SPARSE_BENCH=1 go test ./host/sparserun -run TestSparseTables -v -timeout 1h
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
		dr, err := host.Run(cfg, prog)
		if err != nil {
			t.Fatal(err)
		}
		_, small := sparseRun(t, engine(4, 16), w, in, sparseconv.Balanced)
		_, big := sparseRun(t, engine(8, 32), w, in, sparseconv.Balanced)
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
		_, one := sparseRun(t, engine(1, 16), w, in, sparseconv.Balanced)
		fmt.Printf("| %s | 1 | — | — | %d | 1.00 | — | %.0f%% |\n", name, one.Cycles, pct(one.Units[0].Busy, one.Cycles))
		for _, m := range []int{2, 4, 8} {
			for _, split := range []sparseconv.Split{sparseconv.EqualArea, sparseconv.Balanced} {
				p, r := sparseRun(t, engine(m, 16), w, in, split)
				var busy string
				for i, u := range r.Units {
					if i > 0 {
						busy += "/"
					}
					busy += fmt.Sprintf("%.0f", pct(u.Busy, r.Cycles))
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

func pct(a uint64, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
