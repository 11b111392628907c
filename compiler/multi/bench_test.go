package multi

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// TestSpeedupTable measures the BENCHMARKS.md table "Several neural
// engines": a conv layer on the default NPU with 1, 2 and 4 engines,
// input maps with 50% and 80% zeros spread uniformly or skewed (the
// density growing linearly from the top row to the bottom row, the same
// zero share overall), equal-area bands vs sparsity-balanced bands.
// Every run is checked bit-identical to the single-engine run. It takes
// minutes: MULTI_BENCH=1 runs it (MULTI_BENCH=C,H,W,COUT picks the layer,
// default 32,48,48,32).
//
//	MULTI_BENCH=1 go test ./compiler/multi -run TestSpeedupTable -v -timeout 2h
func TestSpeedupTable(t *testing.T) {
	tooltest.SkipUnlessEnv(t, "MULTI_BENCH", "run the multi-engine speed-up table (minutes)")
	env := os.Getenv("MULTI_BENCH")
	C, H, W, CO := 32, 48, 48, 32
	if f := strings.Split(env, ","); len(f) == 4 {
		v := make([]int, 4)
		for i := range f {
			v[i], _ = strconv.Atoi(f[i])
		}
		C, H, W, CO = v[0], v[1], v[2], v[3]
	}
	rng := rand.New(rand.NewPCG(1, 10))
	w := golden.New(CO, C, 3, 3)
	for i := range w.Data {
		w.Data[i] = int64(rng.IntN(255) - 127)
	}
	conv := compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 10, Relu: true}}
	type mapCase struct {
		name string
		x    *golden.Tensor
	}
	var maps []mapCase
	for _, z := range []float64{0.5, 0.8} {
		d := 1 - z
		maps = append(maps, mapCase{fmt.Sprintf("%.0f%% zeros, uniform", 100*z), densityMap(rng, C, H, W, func(int) float64 { return d })})
		lo, hi := max(0, 2*d-0.9), min(1, 0.9)
		if z == 0.8 {
			lo, hi = 0, 2*d
		}
		maps = append(maps, mapCase{fmt.Sprintf("%.0f%% zeros, skewed (density %.1f→%.1f)", 100*z, lo, hi),
			densityMap(rng, C, H, W, func(y int) float64 { return lo + (hi-lo)*float64(y)/float64(H-1) })})
	}
	fmt.Printf("conv %d×%d×%d → %d, 3×3, pad 1, default NPU\n\n", C, H, W, CO)
	fmt.Println("| input map | engines | split | band rows | non-zero imbalance | cycles | speed-up | of N× | NE busy (per engine) | MAC-bound speed-up (model) |")
	fmt.Println("|---|---:|---|---|---:|---:|---:|---:|---|---:|")
	for _, mc := range maps {
		g := compiler.NewGraph()
		g.Output("y", g.Conv2D(g.Input("x", mc.x), w, conv))
		cfg1 := npu.DefaultConfig()
		p1, err := compiler.Compile(cfg1, g)
		if err != nil {
			t.Fatal(err)
		}
		r1, err := host.Run(cfg1, p1)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("| %s | 1 | — | %d | — | %d | 1.00 | — | %.1f%% | — |\n", mc.name, H, r1.Cycles, pct(r1.Engines[1].Busy, r1.Cycles))
		for _, n := range []int{2, 4} {
			cfg := npu.DefaultConfig()
			cfg.Engines = n
			for _, eq := range []bool{true, false} {
				mp, r := runSplit(t, cfg, mc.x, w, conv, Options{EqualArea: eq}, r1.Outputs["y"], fmt.Sprintf("%s, %d engines", mc.name, n))
				split := "balanced"
				if eq {
					split = "equal-area"
				}
				if mp.Unbalanced != nil {
					split += " (3% not met)"
				}
				var busy []string
				for _, e := range r.NEs {
					busy = append(busy, fmt.Sprintf("%.0f", pct(e.Busy, r.Cycles)))
				}
				sp := float64(r1.Cycles) / float64(r.Cycles)
				fmt.Printf("| %s | %d | %s | %v | %.1f%% | %d | %.2f | %.0f%% | %s%% | %.2f |\n", mc.name, n, split, bandRows(mp),
					100*mp.Metrics.Imbalance, r.Cycles, sp, 100*sp/float64(n), strings.Join(busy, "/"), mp.Metrics.Speedup)
			}
		}
	}
}

// runSplit compiles the conv for cfg's engines as opt says, runs it and
// fails unless the stitched output equals want (the single-engine run).
func runSplit(t *testing.T, cfg npu.Config, x, w *golden.Tensor, conv compiler.Conv, opt Options, want *golden.Tensor, what string) (*Program, *host.Result) {
	t.Helper()
	mp, err := Conv2D(cfg, x, w, conv, opt)
	if err != nil {
		t.Fatal(err)
	}
	r, err := host.Run(cfg, mp.Program)
	if err != nil {
		t.Fatal(err)
	}
	y, err := mp.Stitch(r.Outputs)
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := equal(want, y); !ok {
		t.Fatalf("%s: differs from the single-engine run at %d", what, i)
	}
	return mp, r
}

func pct(a uint64, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// densityMap is a [C,H,W] int8 map whose row y is non-zero with
// probability d(y).
func densityMap(rng *rand.Rand, c, h, w int, d func(y int) float64) *golden.Tensor {
	t := golden.New(c, h, w)
	for ch := range c {
		for y := range h {
			for x := range w {
				if rng.Float64() < d(y) {
					t.Data[(ch*h+y)*w+x] = int64(rng.IntN(255) - 127)
				}
			}
		}
	}
	return t
}

// TestQueuePerBandTable measures the BENCHMARKS.md table "A queue per
// band": the conv of TestSpeedupTable (50% zeros, uniform; equal-area
// bands) on 2 and 4 engines, as one merged program for queue 0 and with
// band i's program in queue i (queues = engines), the queues served by
// fixed priority and round-robin. Every run must be bit-identical to the
// single-engine run.
//
//	QUEUE_BENCH=1 go test ./compiler/multi -run TestQueuePerBandTable -v -timeout 1h
func TestQueuePerBandTable(t *testing.T) {
	tooltest.SkipUnlessEnv(t, "QUEUE_BENCH", "run the queue-per-band table (minutes)")
	C, H, W, CO := 32, 48, 48, 32
	rng := rand.New(rand.NewPCG(1, 10))
	w := golden.New(CO, C, 3, 3)
	for i := range w.Data {
		w.Data[i] = int64(rng.IntN(255) - 127)
	}
	conv := compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 10, Relu: true}}
	x := densityMap(rng, C, H, W, func(int) float64 { return 0.5 })
	g := compiler.NewGraph()
	g.Output("y", g.Conv2D(g.Input("x", x), w, conv))
	p1, err := compiler.Compile(npu.DefaultConfig(), g)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := host.Run(npu.DefaultConfig(), p1)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("conv %d×%d×%d → %d, 3×3, pad 1, 50%% zeros, equal-area bands; one engine: %d cycles\n\n", C, H, W, CO, r1.Cycles)
	fmt.Println("| engines | read ports | merged program (queue 0) | a queue per band, fixed priority | / merged | a queue per band, round-robin | / merged | planar stalled (merged / round-robin) |")
	fmt.Println("|---:|---|---:|---:|---:|---:|---:|---|")
	for _, n := range []int{2, 4} {
		for _, own := range []bool{false, true} {
			var cycles [3]int
			var stall [3]uint64
			for k, mode := range []struct{ perQueue, rr bool }{{false, false}, {true, false}, {true, true}} {
				cfg := npu.DefaultConfig()
				cfg.Engines, cfg.Queues, cfg.QueueRoundRobin = n, n, mode.rr
				cfg.DMAReadPort, cfg.PsumReadPort = own, own
				_, r := runSplit(t, cfg, x, w, conv, Options{EqualArea: true, QueuePerBand: mode.perQueue}, r1.Outputs["y"], fmt.Sprintf("%d engines, own ports %v, %+v", n, own, mode))
				cycles[k], stall[k] = r.Cycles, r.Engines[2].Stall
			}
			ports := "shared"
			if own {
				ports = "`dma_read_port`, `psum_read_port`"
			}
			fmt.Printf("| %d | %s | %d | %d | %.3f | %d | %.3f | %.0f%% / %.0f%% |\n", n, ports, cycles[0], cycles[1], float64(cycles[1])/float64(cycles[0]),
				cycles[2], float64(cycles[2])/float64(cycles[0]), pct(stall[0], cycles[0]), pct(stall[2], cycles[2]))
		}
	}
}
