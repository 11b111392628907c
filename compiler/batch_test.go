package compiler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// smallNet is a conv (tap-mapped first layer), max pool and FC with
// per-channel requantization on input x.
func smallNet(x *golden.Tensor, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 1))
	g := NewGraph()
	y := g.Conv2D(g.Input("x", x), randTensor(rng, -128, 127, 6, 1, 3, 3), Conv{PadH: 1, PadW: 1,
		Requant: golden.Requant{Scale: 1, Shift: 7, Relu: true}})
	y = g.Pool2D(y, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2, Padding: golden.PadIgnore})
	pc := &ChannelRequant{Scale: []int64{3, 5, 7, 9, 11}, Bias: []int64{-50, 0, 50, 100, 7}}
	g.Output("y", g.GEMMPerChannel(g.Flatten(y), randTensor(rng, -128, 127, 6*4*4, 5), pc, golden.Requant{Shift: 10}))
	return g
}

// TestBatch runs n copies of a compiled net in one batch program, each
// on its own input: every copy's output equals the golden model's for
// its input, in program order and in random legal orders, and the
// derived dependencies cover every traced conflict.
func TestBatch(t *testing.T) {
	for _, cfg := range []npu.Config{small(), npu.DefaultConfig()} {
		for _, n := range []int{1, 3} {
			t.Run(fmt.Sprintf("%dx%d/n%d", cfg.Rows, cfg.Cols, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(11, uint64(n)))
				xs := make([]*golden.Tensor, n)
				for k := range xs {
					xs[k] = randTensor(rng, -128, 127, 1, 8, 8)
				}
				p, err := Compile(cfg, smallNet(xs[0], 3))
				if err != nil {
					t.Fatal(err)
				}
				b, err := Batch(p, n, "x")
				if err != nil {
					t.Fatal(err)
				}
				checkBatch(t, cfg, b, xs, rng, 3)
				if n == 1 {
					// One copy is the program itself: same descriptors.
					if d := cmp.Diff(p.Descriptors(), b.Descriptors()); d != "" {
						t.Errorf("a batch of 1 differs from the program (-program +batch):\n%s", d)
					}
				}
				if got, want := len(b.Inputs), len(p.Inputs)+n-1; got != want {
					t.Errorf("%d input bindings, want %d (the weights once, x per copy)", got, want)
				}
			})
		}
	}
}

func TestBatchErrors(t *testing.T) {
	p, err := Compile(small(), smallNet(golden.New(1, 8, 8), 3))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    int
		in   string
		want string
	}{
		{0, "x", "batch of 0"},
		{2, "nope", `no input "nope"`},
		{400, "x", "ext_addr_width"},
	} {
		if _, err := Batch(p, tc.n, tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Batch(%d, %q): error %v, want one containing %q", tc.n, tc.in, err, tc.want)
		}
	}
}

// TestCompileBatch: the interleaved batch (half buffers, odd copies in
// the upper halves, a loadparams before every per-lane act) computes
// every copy's golden output, in program order and in random legal
// orders, with every traced conflict covered by a dependency.
func TestCompileBatch(t *testing.T) {
	roomy := small() // room for the net in half of each buffer
	roomy.StateDepth, roomy.PsumDepth, roomy.WeightDepth = 512, 128, 128
	for _, cfg := range []npu.Config{roomy, npu.DefaultConfig()} {
		for _, n := range []int{2, 3} {
			t.Run(fmt.Sprintf("%dx%d/n%d", cfg.Rows, cfg.Cols, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(13, uint64(n)))
				xs := make([]*golden.Tensor, n)
				for k := range xs {
					xs[k] = randTensor(rng, -128, 127, 1, 8, 8)
				}
				b, err := CompileBatch(cfg, smallNet(xs[0], 3), n, "x")
				if err != nil {
					t.Fatal(err)
				}
				reloads := 0
				for _, task := range b.Tasks {
					if strings.HasSuffix(task.Label, " params") {
						reloads++
					}
				}
				if reloads == 0 {
					t.Fatal("no per-lane act got its own loadparams: the batch was not interleaved")
				}
				checkBatch(t, cfg, b, xs, rng, 5)
			})
		}
	}
}

// checkBatch sets input k of batch program b to xs[k] and checks that
// every copy's output is smallNet's golden one, in program order and in
// random legal orders, and that the dependencies cover every
// traced conflict.
func checkBatch(t *testing.T, cfg npu.Config, b *Program, xs []*golden.Tensor, rng *rand.Rand, orders int) {
	t.Helper()
	want := map[string]*golden.Tensor{}
	for k, x := range xs {
		if err := b.SetInput(BatchName("x", k), x); err != nil {
			t.Fatal(err)
		}
		ref, err := smallNet(x, 3).Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		want[BatchName("y", k)] = ref["y"]
	}
	got, _, err := Interpret(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("batch outputs (-golden +interpreter):\n%s", d)
	}
	acc, err := TraceAccesses(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDeps(b, acc); err != nil {
		t.Fatalf("traced accesses: %v", err)
	}
	for i := 0; i < orders; i++ {
		got, _, err := InterpretOrder(b, RandomOrder(b, rng))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("random order %d (-golden +interpreter):\n%s", i, d)
		}
	}
}
