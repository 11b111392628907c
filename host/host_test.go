package host

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

func small() npu.Config {
	c := npu.DefaultConfig()
	c.Rows, c.Cols, c.StateDepth, c.PsumDepth, c.WeightDepth, c.ExtAddrWidth = 4, 4, 256, 64, 64, 10
	return c
}

func randTensor(rng *rand.Rand, shape ...int) *golden.Tensor {
	t := golden.New(shape...)
	for i := range t.Data {
		t.Data[i] = rng.Int64N(256) - 128
	}
	return t
}

// run compiles g, runs it on the simulation top and compares with the
// golden reference and with the interpreter.
func run(t *testing.T, cfg npu.Config, g *compiler.Graph) *Result {
	t.Helper()
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, res.Outputs); d != "" {
		t.Fatalf("(-golden +simulator):\n%s", d)
	}
	if len(res.Timeline) != len(p.Tasks) {
		t.Errorf("timeline has %d tasks, the program %d", len(res.Timeline), len(p.Tasks))
	}
	for _, s := range res.Timeline {
		if s.Start < 0 || s.End < s.Start || s.End > res.Cycles {
			t.Errorf("task %d (%s): span %d..%d outside the run of %d cycles", s.ID, s.Label, s.Start, s.End, res.Cycles)
		}
	}
	t.Logf("%s: %s (%v)", p.Summary(), res.Summary(), res.Wall)
	return res
}

func TestGEMMSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := compiler.NewGraph()
	a := g.Input("a", randTensor(rng, 6, 7))
	g.Output("c", g.GEMM(a, randTensor(rng, 7, 5), golden.Requant{Scale: 1, Shift: 6}))
	res := run(t, small(), g)

	var buf bytes.Buffer
	if err := res.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &tr); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	n := 0
	for _, e := range tr.TraceEvents {
		if e["ph"] == "X" {
			n++
		}
	}
	if n != len(res.Timeline) {
		t.Errorf("trace has %d task events, timeline %d", n, len(res.Timeline))
	}
}

// Every operation at one small shape on the Go simulator of the small
// configuration, against the golden models.
func TestOps(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *compiler.Graph, rng *rand.Rand)
	}{
		{"gemm_kblocks", func(g *compiler.Graph, rng *rand.Rand) {
			a := g.Input("a", randTensor(rng, 9, 40))
			g.Output("c", g.GEMM(a, randTensor(rng, 40, 6), golden.Requant{Scale: 1, Shift: 8}))
		}},
		{"conv_pad_stride2", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 5, 7, 6))
			g.Output("y", g.Conv2D(x, randTensor(rng, 6, 5, 3, 3), compiler.Conv{Stride: 2, PadH: 1, PadW: 1,
				Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}}))
		}},
		{"transpose", func(g *compiler.Graph, rng *rand.Rand) {
			a := g.Input("a", randTensor(rng, 7, 10))
			g.Output("at", g.Transpose(a))
		}},
		{"pool_max", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 5, 6, 6))
			g.Output("y", g.Pool2D(x, compiler.Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1}))
		}},
		{"pool_avg", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 3, 4, 6))
			g.Output("y", g.Pool2D(x, compiler.Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 2, Requant: compiler.AvgRequant(4)}))
		}},
		{"eltwise", func(g *compiler.Graph, rng *rand.Rand) {
			a := g.Input("a", randTensor(rng, 6, 5))
			b := g.Input("b", randTensor(rng, 6, 5))
			s := g.Eltwise(golden.EltSub, a, b, golden.Requant{Scale: 1, Shift: 1})
			g.Output("max", g.Eltwise(golden.EltMax, s, a, golden.Requant{}))
			g.Output("mul", g.EltwiseScalar(golden.EltMul, s, -3, golden.Requant{Scale: 1, Shift: 2}))
		}},
		{"requant_reduce", func(g *compiler.Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, 5, 3, 4))
			r := g.Requant(x, golden.Requant{Scale: 3, Shift: 2, Relu: true})
			g.Output("relu", r)
			g.Output("sum", g.Reduce(r, golden.ReduceSum, golden.Requant{Scale: 1, Shift: 3}))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := compiler.NewGraph()
			tc.build(g, rand.New(rand.NewPCG(9, uint64(len(tc.name)))))
			run(t, small(), g)
			// The same with partial-output gating: consumers start early.
			g = compiler.NewGraph()
			tc.build(g, rand.New(rand.NewPCG(9, uint64(len(tc.name)))))
			run(t, gated(small()), g)
		})
	}
}

// TestNetwork: conv → ReLU → max pool → conv → fully connected, the
// intermediates on chip.
func TestNetwork(t *testing.T) { run(t, small(), toyNet()) }

// toyNet is conv → ReLU → max pool → conv → fully connected on a 3×8×8
// input: 74 tasks on the 4×4 NPU.
func toyNet() *compiler.Graph {
	rng := rand.New(rand.NewPCG(11, 12))
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 3, 8, 8))
	y := g.Conv2D(x, randTensor(rng, 6, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}})
	y = g.Pool2D(y, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
	y = g.Conv2D(y, randTensor(rng, 5, 6, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}})
	g.Output("fc", g.GEMM(g.Flatten(y), randTensor(rng, 5*4*4, 10), golden.Requant{Scale: 1, Shift: 9}))
	return g
}

// TestGEMMDefault: the default 16×16 configuration.
func TestGEMMDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := compiler.NewGraph()
	a := g.Input("a", randTensor(rng, 40, 48))
	g.Output("c", g.GEMM(a, randTensor(rng, 48, 20), golden.Requant{Scale: 1, Shift: 9}))
	run(t, npu.DefaultConfig(), g)
}

// TestUtilization: GEMM 256×256×256 on the default NPU keeps the PE
// array at least 90% busy (BENCHMARKS.md "NPU utilization" has the
// figures and what bounds them).
func TestUtilization(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	g := compiler.NewGraph()
	a := g.Input("a", randTensor(rng, 256, 256))
	g.Output("c", g.GEMM(a, randTensor(rng, 256, 256), golden.Requant{Scale: 1, Shift: 12}))
	res := run(t, npu.DefaultConfig(), g)
	if u := res.Utilization(); u < 0.90 {
		t.Errorf("GEMM 256³: %d cycles for an ideal %d: utilization %.1f%%, want at least 90%%", res.Cycles, res.Ideal, 100*u)
	}
}

// TestCrossCheck replays a recorded run of the docs/sources.md §5 convolution
// (5×5×3 input, two 3×3 filters) on Verilator: identical outputs in
// every cycle. The direct convolution, as the document counts it (81
// vector passes); tap mapping would stream 2 tiles × 9 pixels.
func TestCrossCheck(t *testing.T) {
	tooltest.Need(t, "verilator")
	rng := rand.New(rand.NewPCG(5, 6))
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 3, 5, 5))
	g.Output("y", g.Conv2D(x, randTensor(rng, 2, 3, 3, 3), compiler.Conv{Requant: golden.Requant{Scale: 1, Shift: 7}, Taps: compiler.TapsDirect}))
	cfg := small()
	res := run(t, cfg, g)
	if want := uint64(81 * cfg.Rows * cfg.Cols); res.MACs != want {
		t.Errorf("mac_count %d, want 81 vectors × %d", res.MACs, cfg.Rows*cfg.Cols)
	}
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on %d outputs over %d cycles (build %v, cached %v)", cr.Outputs, cr.Cycles, cr.BuildTime, cr.Cached)
}

// TestJoinsAndWindow: with max_deps 1 and a window of 4 the compiler
// inserts join nops and drops dependencies the window implies; the
// hardware accepts the program and computes the same network.
func TestJoinsAndWindow(t *testing.T) {
	cfg := small()
	cfg.MaxDeps, cfg.Window = 1, 4
	rng := rand.New(rand.NewPCG(13, 14))
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 3, 6, 6))
	y := g.Conv2D(x, randTensor(rng, 5, 3, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 8, Relu: true}})
	y = g.Pool2D(y, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
	g.Output("fc", g.GEMM(g.Flatten(y), randTensor(rng, 5*3*3, 6), golden.Requant{Scale: 1, Shift: 9}))
	run(t, cfg, g)
}

// TestVCDAndProgress: a waveform file and progress reports.
func TestVCDAndProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := compiler.NewGraph()
	a := g.Input("a", randTensor(rng, 5, 6))
	g.Output("at", g.Transpose(a))
	cfg := small()
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.vcd")
	var phases []string
	res, err := Run(cfg, p, WithVCD(path), WithProgress(10, func(pr Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != pr.Phase {
			phases = append(phases, pr.Phase)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("$enddefinitions")) || !bytes.Contains(b, []byte("cmd_valid")) {
		t.Errorf("VCD %s: %d bytes, err %v", path, len(b), err)
	}
	if d := cmp.Diff([]string{"load", "run", "read"}, phases); d != "" {
		t.Errorf("progress phases (-want +got):\n%s", d)
	}
	want, _ := g.Reference(cfg)
	if d := cmp.Diff(want, res.Outputs); d != "" {
		t.Errorf("(-golden +simulator):\n%s", d)
	}
}

// TestCrossCheckTaps replays a tap-mapped first layer (one input channel,
// 3×3 kernel, padding: the input streamed as its windows) on Verilator.
func TestCrossCheckTaps(t *testing.T) {
	tooltest.Need(t, "verilator")
	rng := rand.New(rand.NewPCG(5, 7))
	g := compiler.NewGraph()
	x := g.Input("x", randTensor(rng, 1, 6, 6))
	g.Output("y", g.Conv2D(x, randTensor(rng, 3, 1, 3, 3), compiler.Conv{PadH: 1, PadW: 1, Requant: golden.Requant{Scale: 1, Shift: 6}}))
	cfg := small()
	res := run(t, cfg, g)
	// 9 taps on 4 rows: 3 row tiles per output pixel instead of 9 passes.
	if want := uint64(3 * 36 * cfg.Rows * cfg.Cols); res.MACs != want {
		t.Errorf("mac_count %d, want 3 × 36 vectors × %d", res.MACs, cfg.Rows*cfg.Cols)
	}
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on %d outputs over %d cycles", cr.Outputs, cr.Cycles)
}
