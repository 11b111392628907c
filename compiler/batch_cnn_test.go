package compiler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// cnnNet is a small net of the new operations on input x: a grouped
// conv, a channel shuffle into a depthwise conv, a concat with a pooled
// branch (an output, as is one part, and read on), a grouped conv of
// the concat.
func cnnNet(x *golden.Tensor, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 1))
	q := golden.Requant{Scale: 1, Shift: 7, Relu: true}
	g := NewGraph()
	in := g.Input("x", x)
	y := g.Conv2D(in, randTensor(rng, -128, 127, 6, 3, 3, 3), Conv{PadH: 1, PadW: 1, Requant: q})
	b := g.Conv2D(y, randTensor(rng, -128, 127, 6, 3, 1, 1), Conv{Requant: q, Groups: 2})
	b = g.Conv2D(g.ChannelShuffle(b, 2), randTensor(rng, -128, 127, 6, 1, 3, 3), Conv{PadH: 1, PadW: 1, Requant: q, Groups: 6})
	cat := g.Concat(g.Pool2D(y, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, Padding: golden.PadIgnore}), b)
	g.Output("cat", cat)
	g.Output("b", b)               // a part: a proper part of the concatenation's lines
	g.Output("flat", g.Flatten(b)) // a view of an output: the same lines
	g.Output("y", g.Conv2D(cat, randTensor(rng, -128, 127, 4, 6, 1, 1), Conv{Requant: q, Groups: 2}))
	return g
}

// Batches of the CNN operations: Batch (image after image, one program)
// and CompileBatch (images interleaved on halves of the buffers), with
// maps on chip and spilled to external memory; every image's outputs
// golden, in program order and in random legal orders.
func TestBatchCNN(t *testing.T) {
	roomy := small()
	roomy.StateDepth, roomy.PsumDepth, roomy.WeightDepth = 512, 128, 128
	cases := []struct {
		name        string
		cfg         npu.Config
		h           int
		interleaved bool
	}{
		{"on chip", roomy, 6, false},
		{"spilled", small(), 12, false},
		{"interleaved", roomy, 6, true},
		{"interleaved, spilled", roomy, 12, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(17, uint64(tc.h)))
			const n = 3
			xs := make([]*golden.Tensor, n)
			for k := range xs {
				xs[k] = randTensor(rng, -128, 127, 3, tc.h, tc.h)
			}
			cfg := tc.cfg
			cfg.ExtAddrWidth = 14
			var b *Program
			var err error
			if tc.interleaved {
				b, err = CompileBatch(cfg, cnnNet(xs[0], 3), n, "x")
			} else {
				var p *Program
				if p, err = Compile(cfg, cnnNet(xs[0], 3)); err == nil {
					b, err = Batch(p, n, "x")
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]*golden.Tensor{}
			for k, x := range xs {
				if err := b.SetInput(BatchName("x", k), x); err != nil {
					t.Fatal(err)
				}
				ref, err := cnnNet(x, 3).Reference(cfg)
				if err != nil {
					t.Fatal(err)
				}
				for name, v := range ref {
					want[BatchName(name, k)] = v
				}
			}
			for i := range 3 {
				order := RandomOrder(b, rng)
				if i == 0 {
					order = nil
				}
				var got map[string]*golden.Tensor
				if order == nil {
					got, _, err = Interpret(b)
				} else {
					got, _, err = InterpretOrder(b, order)
				}
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%s (-golden +interpreter):\n%s", fmt.Sprint("order ", i), d)
				}
			}
			acc, err := TraceAccesses(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckDeps(b, acc); err != nil {
				t.Fatalf("traced accesses: %v", err)
			}
		})
	}
}
