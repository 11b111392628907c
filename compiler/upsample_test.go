package compiler

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// upsampleTasks counts an upsample's stores (one per input row and
// copy) and loads (one per band of a streamed operand).
func upsampleTasks(p *Program) (stores, loads int) {
	for _, t := range p.Tasks {
		switch {
		case strings.HasPrefix(t.Label, "upsample0 row "):
			stores++
		case strings.HasPrefix(t.Label, "upsample0 load rows "):
			loads++
		}
	}
	return stores, loads
}

// Upsample by 2 on the reference machine, bit for bit against the golden
// model (and in random legal orders), for resident operands and
// streamed ones (in bands), tiles of Rows and of Cols partitions, three
// seeds each: four stores per input row.
func TestUpsample(t *testing.T) {
	none := func(n int) bool { return n == 0 }
	some := func(n int) bool { return n > 1 }
	roomy := small()
	roomy.ExtAddrWidth = 12
	cases := []struct {
		name      string
		cfg       npu.Config
		build     func(g *Graph, rng *rand.Rand)
		rows      int              // channel tiles × H: the input rows
		wantLoads func(n int) bool // bands of a streamed operand
	}{
		{"conv, upsample, conv: resident operand", small(), func(g *Graph, rng *rand.Rand) {
			x := conv3(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 3, 4)), 4, 1)
			g.Output("y", conv3(g, rng, g.Upsample(x, 2), 3, 1))
		}, 3, none},
		{"conv, upsample, conv: two channel tiles", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 6, 6)), 6)
			g.Output("y", conv3(g, rng, g.Upsample(x, 2), 5, 1))
		}, 12, none},
		{"graph input streamed in bands, the result an output", roomy, func(g *Graph, rng *rand.Rand) {
			g.Output("y", g.Upsample(g.Input("x", randTensor(rng, -128, 127, 5, 9, 14)), 2))
		}, 18, some},
		{"a spilled conv result streamed in bands", roomy, func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 14, 14)), 8)
			g.Output("y", conv1(g, rng, g.Upsample(x, 2), 3))
		}, 28, some},
		{"[1,C,H,W], the result read twice: a pool and an output", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Requant(g.Input("x", randTensor(rng, -128, 127, 1, 2, 3, 5)), golden.Requant{Scale: 1, Relu: true})
			u := g.Upsample(x, 2)
			g.Output("u", u)
			g.Output("p", g.Pool2D(u, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}))
		}, 3, none},
		{"u-net: upsample, concat with the skip, conv", small(), func(g *Graph, rng *rand.Rand) {
			skip := conv3(g, rng, g.Input("x", randTensor(rng, -128, 127, 2, 6, 6)), 4, 1)
			down := g.Pool2D(skip, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
			mid := conv3(g, rng, down, 5, 1)
			g.Output("y", conv3(g, rng, g.Concat(g.Upsample(mid, 2), skip), 3, 1))
		}, 6, none},
		{"narrow array: tiles of Cols partitions", narrow(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 5, 4)), 7)
			g.Output("y", conv1(g, rng, g.Upsample(x, 2), 3))
		}, 10, none},
		{"upsample of a concat with holes, upsampled again, pooled", roomy, func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 3, 3, 4))
			cat := g.Concat(conv1(g, rng, x, 3), conv1(g, rng, x, 2))
			u := g.Upsample(g.Upsample(cat, 2), 2)
			g.Output("y", g.Pool2D(u, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Padding: golden.PadIgnore}))
		}, 6, none},
		{"an FC layer on the flattened result", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 2, 2, 3)), 5)
			g.Output("y", g.GEMM(g.Flatten(g.Upsample(x, 2)), randTensor(rng, -128, 127, 5*4*6, 3), q7))
		}, 4, none},
		{"a channel shuffle before: the layout carries through", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 3, 3)), 6)
			u := g.Upsample(g.ChannelShuffle(x, 2), 2)
			g.Output("y", g.Eltwise(golden.EltAdd, u, u, golden.Requant{Scale: 1}))
		}, 6, none},
	}
	for _, tc := range cases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(tc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 11))
				g := NewGraph()
				tc.build(g, rng)
				p := verifyGraph(t, tc.cfg, g, 2)
				if stores, loads := upsampleTasks(p); stores != 4*tc.rows || !tc.wantLoads(loads) {
					t.Errorf("%d stores, want %d; %d loads", stores, 4*tc.rows, loads)
				}
			})
		}
	}
}

// An upsampling a Concat reads writes its part of the concatenation
// directly (no copy of the part): through staging and one load when the
// concatenation is in the state buffer, straight into its lines when it
// is spilled; bit for bit against the golden model, three seeds each.
func TestUpsampleIntoConcat(t *testing.T) {
	roomy := small()
	roomy.ExtAddrWidth = 13
	cases := []struct {
		name     string
		h, w     int  // the skip's plane; the upsampled map is half of it
		resident bool // the concatenation in the state buffer
	}{
		{"resident concatenation", 6, 6, true},
		{"spilled concatenation", 14, 16, false},
	}
	for _, tc := range cases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(tc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 12))
				g := NewGraph()
				skip := conv3(g, rng, g.Input("x", randTensor(rng, -128, 127, 2, tc.h, tc.w)), 4, 1)
				mid := conv3(g, rng, g.Pool2D(skip, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2}), 6, 1)
				g.Output("y", conv3(g, rng, g.Concat(g.Upsample(mid, 2), skip), 3, 1))
				p := verifyGraph(t, roomy, g, 1)
				_, parts := copies(p)
				staged := 0
				for _, task := range p.Tasks {
					if task.Label == "upsample0 load result" {
						staged++
					}
				}
				if want := map[bool]int{true: 1, false: 0}[tc.resident]; parts != 0 || staged != want {
					t.Errorf("%d part copies, %d staged loads of the result: want 0 and %d", parts, staged, want)
				}
			})
		}
	}
}

// The upsampling refuses what it cannot do, in one line naming the op.
func TestUpsampleRefusals(t *testing.T) {
	wide := small()
	wide.StateDepth = 64
	cases := []struct {
		name  string
		cfg   npu.Config
		build func(g *Graph)
		want  string
	}{
		{"factor 3", small(), func(g *Graph) {
			g.Output("y", g.Upsample(g.Input("x", golden.New(2, 3, 3)), 3))
		}, "upsample0: factor 3: only 2"},
		{"not a feature map", small(), func(g *Graph) {
			g.Output("y", g.Upsample(g.Input("x", golden.New(2, 3)), 2))
		}, "upsample0: input shape [2 3]: want a feature map"},
		{"a row wider than the state buffer", wide, func(g *Graph) {
			g.Output("y", g.Upsample(g.Input("x", golden.New(1, 1, 70)), 2))
		}, "upsample0: a row of 70 elements needs 70 state addresses to upsample, the state buffer has at most 64 free"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			tc.build(g)
			_, err := Compile(tc.cfg, g)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, tc.want)
			}
		})
	}
	// The golden model of a 1×2×2 plane, by hand.
	g := NewGraph()
	u := g.Upsample(g.Input("x", &golden.Tensor{Shape: []int{1, 2, 2}, Data: []int64{1, 2, 3, 4}}), 2)
	g.Output("y", u)
	got, err := g.Reference(small())
	if err != nil {
		t.Fatal(err)
	}
	want := &golden.Tensor{Shape: []int{1, 4, 4}, Data: []int64{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}}
	if d := cmp.Diff(want, got["y"]); d != "" {
		t.Errorf("reference (-want +got):\n%s", d)
	}
}
