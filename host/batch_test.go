package host

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// batchNet is a conv with per-channel requantization (per-lane acts) and
// a max pool, small enough for half of small()'s buffers.
func batchNet(x *golden.Tensor) *compiler.Graph {
	rng := rand.New(rand.NewPCG(31, 32))
	g := compiler.NewGraph()
	pc := &compiler.ChannelRequant{Scale: []int64{3, 5, 7}, Bias: []int64{-40, 0, 60}}
	y := g.Conv2D(g.Input("x", x), randTensor(rng, 3, 1, 3, 3), compiler.Conv{PadH: 1, PadW: 1, PerChannel: pc,
		Requant: golden.Requant{Shift: 9, Relu: true}})
	g.Output("y", g.Pool2D(y, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}))
	return g
}

// TestInterleavedBatch runs an interleaved batch program (its images in
// different halves of the buffers, their tasks interleaved, a loadparams
// before every per-lane act) on the Go simulator and replays it on
// Verilator: every image's output is the golden model's.
func TestInterleavedBatch(t *testing.T) {
	cfg := small()
	rng := rand.New(rand.NewPCG(33, 34))
	xs := []*golden.Tensor{randTensor(rng, 1, 6, 6), randTensor(rng, 1, 6, 6), randTensor(rng, 1, 6, 6)}
	b, err := compiler.CompileBatch(cfg, batchNet(xs[0]), len(xs), "x")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Labels()[len(b.Tasks)/2], "@") || !hasReload(b) {
		t.Fatal("the batch was not interleaved (no loadparams before its per-lane acts)")
	}
	want := map[string]*golden.Tensor{}
	for k, x := range xs {
		if err := b.SetInput(compiler.BatchName("x", k), x); err != nil {
			t.Fatal(err)
		}
		ref, err := batchNet(x).Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want[compiler.BatchName("y", k)] = ref["y"]
	}
	res, err := Run(cfg, b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, res.Outputs); d != "" {
		t.Fatalf("(-golden +npu):\n%s", d)
	}
	tooltest.Need(t, "verilator")
	cr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cycles for %d images; Verilator agrees on %d outputs over %d cycles", res.Cycles, len(xs), cr.Outputs, cr.Cycles)
}

func hasReload(p *compiler.Program) bool {
	for _, l := range p.Labels() {
		if strings.HasSuffix(l, " params") {
			return true
		}
	}
	return false
}
