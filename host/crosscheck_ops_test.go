package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/workload"
)

// everyOp is one small workload of every operation kind.
func everyOp() []workload.Workload {
	pad := func(v int) *int { return &v }
	return []workload.Workload{
		{Op: "gemm", M: 9, K: 6, N: 5},
		{Op: "conv2d", C: 5, H: 6, W: 5, Cout: 3, Kernel: 3, Stride: 2, Pad: pad(1)},
		{Op: "transpose", M: 6, N: 7},
		{Op: "pool", C: 3, H: 6, W: 6, Kernel: 3, Stride: 2, Pad: pad(1), Pool: "avg"},
		{Op: "pool", C: 3, H: 5, W: 7, Kernel: 3, Stride: 1, Pad: pad(1), Pool: "min"},
		{Op: "eltwise", C: 3, H: 3, W: 4, Fn: "sub"},
		{Op: "eltwise", C: 5, H: 2, W: 3, Fn: "abs"},
		{Op: "reduce", C: 5, H: 3, W: 4, Fn: "rowmax", Post: "recip"},
		{Op: "net", C: 2, H: 6, W: 6, Cout: 4, N: 3},
	}
}

// compileWorkload draws w's inputs and returns the golden outputs and the
// program compiled for cfg.
func compileWorkload(t *testing.T, cfg npu.Config, w workload.Workload) (map[string]*golden.Tensor, *compiler.Program) {
	t.Helper()
	w = w.WithDefaults()
	g, err := w.Graph(w.RandomInputs(nil))
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	return want, p
}

// Every operation at one shape runs on both simulators with identical
// results and identical cycle counts: the Go run is recorded and
// replayed on Verilator, every output port compared in every cycle (the
// host memory read port carries the results, the counters and idle the
// cycle counts). One small NPU, so one Verilator build serves them all.
func TestEveryOpOnVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	cfg := small()
	for _, w := range everyOp() {
		t.Run(w.Op, func(t *testing.T) {
			want, p := compileWorkload(t, cfg, w)
			res, err := Run(cfg, p)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, res.Outputs); d != "" {
				t.Fatalf("(-golden +simulator):\n%s", d)
			}
			cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d cycles; Verilator identical on %d outputs × %d cycles", w.Op, res.Cycles, cr.Outputs, cr.Cycles)
		})
	}
}
