package compiler

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

var q7 = golden.Requant{Scale: 1, Shift: 7}

// conv1 is a 1×1 conv of x to co channels with random weights.
func conv1(g *Graph, rng *rand.Rand, x *Value, co int) *Value {
	return g.Conv2D(x, randTensor(rng, -128, 127, co, x.shape[0], 1, 1), Conv{Requant: q7})
}

// conv3 is a 3×3 conv (padding 1) of x to co channels in groups.
func conv3(g *Graph, rng *rand.Rand, x *Value, co, groups int) *Value {
	return g.Conv2D(x, randTensor(rng, -128, 127, co, x.shape[0]/groups, 3, 3), Conv{PadH: 1, PadW: 1, Requant: q7, Groups: groups})
}

// copies counts the tasks that copy data: relayout convs and the copies
// of concat parts.
func copies(p *Program) (relayouts, parts int) {
	for _, t := range p.Tasks {
		switch {
		case strings.Contains(t.Label, "relayout") || strings.Contains(t.Label, " operand "):
			relayouts++
		case strings.Contains(t.Label, " part "):
			parts++
		}
	}
	return relayouts, parts
}

// Concat and channel permutations on the reference machine, bit for bit
// against the golden model, and how many tasks copy: none where the
// producers can write into the concatenation or a consumer can read the
// permuted order.
func TestConcatPermute(t *testing.T) {
	cases := []struct {
		name                   string
		cfg                    npu.Config
		build                  func(g *Graph, rng *rand.Rand)
		wantRelayout, wantPart bool
	}{
		{"inception: four branches", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 5, 5)), 6)
			b1 := conv1(g, rng, x, 4)
			b2 := conv3(g, rng, conv1(g, rng, x, 3), 8, 1)
			b3 := conv3(g, rng, conv1(g, rng, x, 2), 4, 1)
			b4 := conv1(g, rng, g.Pool2D(x, Pool{Kind: golden.PoolMax, KH: 3, KW: 3, PadH: 1, PadW: 1, Stride: 1, Padding: golden.PadIgnore}), 4)
			g.Output("y", conv1(g, rng, g.Concat(b1, b2, b3, b4), 5))
		}, false, false},
		{"unaligned parts leave holes", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 4, 4)), 6)
			cat := g.Concat(g.Pool2D(x, Pool{Kind: golden.PoolAvg, KH: 2, KW: 2, Stride: 1, PadH: 0, Requant: AvgRequant(4)}),
				conv1(g, rng, g.Pool2D(x, Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 1}), 5))
			r := g.Requant(cat, golden.Requant{Scale: 1, Relu: true})
			g.Output("cat", r)
			g.Output("y", conv1(g, rng, r, 3))
		}, false, false},
		{"densenet: concats extend one storage", small(), func(g *Graph, rng *rand.Rand) {
			feats := []*Value{conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 5, 5)), 4)}
			for range 3 {
				in := feats[0]
				if len(feats) > 1 {
					in = g.Concat(feats...)
				}
				l := conv3(g, rng, conv1(g, rng, g.Requant(in, golden.Requant{Scale: 1, Relu: true}), 6), 2, 1)
				feats = append(feats, l)
			}
			g.Output("block", g.Concat(feats...))
		}, false, false},
		{"graph inputs and a reused part are copied", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 3, 4, 4))
			y := conv1(g, rng, x, 5)
			g.Output("xy", g.Concat(x, y))
			g.Output("yy", g.Concat(y, y))
		}, false, true},
		{"narrow array: parts of both tile sizes", narrow(), func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 6, 4, 4))
			g.Output("y", conv1(g, rng, g.Concat(x, conv1(g, rng, x, 5)), 3))
		}, true, false},
		{"shuffle before a depthwise conv moves nothing", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 8, 4, 4)), 8)
			d := conv3(g, rng, g.ChannelShuffle(x, 2), 8, 8)
			g.Output("y", g.Requant(d, golden.Requant{Scale: 1, Relu: true}))
		}, false, false},
		{"shuffle into a dense conv folds into its weights", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 6, 4, 4)), 6)
			g.Output("y", conv1(g, rng, g.ChannelShuffle(x, 3), 5))
		}, false, false},
		{"shuffle into a grouped conv is copied", npu.DefaultConfig(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 64, 3, 3)), 64)
			g.Output("y", conv3(g, rng, g.ChannelShuffle(x, 4), 64, 4))
		}, true, false},
		{"shufflenet unit: shuffle, depthwise, grouped conv, concat with the pooled input", small(), func(g *Graph, rng *rand.Rand) {
			x := conv1(g, rng, g.Input("x", randTensor(rng, -128, 127, 3, 6, 6)), 6)
			b := g.Conv2D(x, randTensor(rng, -128, 127, 6, 2, 1, 1), Conv{Requant: q7, Groups: 3})
			b = g.Conv2D(g.ChannelShuffle(b, 3), randTensor(rng, -128, 127, 6, 1, 3, 3), Conv{Stride: 2, PadH: 1, PadW: 1, Requant: q7, Groups: 6})
			b = g.Conv2D(b, randTensor(rng, -128, 127, 9, 2, 1, 1), Conv{Requant: q7, Groups: 3})
			p := g.Pool2D(x, Pool{Kind: golden.PoolAvg, KH: 3, KW: 3, Stride: 2, PadH: 1, PadW: 1, Requant: AvgRequant(9)})
			u := g.Requant(g.Concat(p, b), golden.Requant{Scale: 1, Relu: true})
			// The next unit adds a conv's result to the concatenation:
			// the conv is produced in the concatenation's layout.
			u2 := g.Eltwise(golden.EltAdd, u, conv1(g, rng, u, 15), golden.Requant{Scale: 1, Relu: true})
			g.Output("y", u2)
		}, false, false},
		{"eltwise of two orders copies", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 6, 3, 3))
			a := g.Pool2D(x, Pool{Kind: golden.PoolMax, KH: 1, KW: 1})
			g.Output("y", g.Eltwise(golden.EltAdd, g.ChannelShuffle(a, 2), g.Pool2D(x, Pool{Kind: golden.PoolMin, KH: 1, KW: 1}), golden.Requant{Scale: 1}))
		}, true, false},
		{"per-channel operands take the permuted order", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Pool2D(g.Input("x", randTensor(rng, -128, 127, 7, 4, 4)), Pool{Kind: golden.PoolMax, KH: 1, KW: 1})
			s := g.PermuteChannels(x, []int{6, 2, 4, 0, 1, 5, 3})
			m := g.EltwiseChannel(golden.EltSub, s, g.Reduce(s, golden.ReduceMax, golden.Requant{}), golden.Requant{Scale: 1})
			g.Output("y", g.EltwiseChannel(golden.EltAdd, m, g.Input("bias", randTensor(rng, -20, 20, 7)), golden.Requant{Scale: 1}))
		}, false, false},
		{"permuted input and output", small(), func(g *Graph, rng *rand.Rand) {
			x := g.Input("x", randTensor(rng, -128, 127, 6, 3, 3))
			s := g.PermuteChannels(x, []int{5, 0, 4, 1, 3, 2})
			p := g.Pool2D(s, Pool{Kind: golden.PoolMax, KH: 2, KW: 2})
			g.Output("p", p)
			g.Output("s", g.ChannelShuffle(p, 3))
			g.Output("r", g.Reduce(p, golden.ReduceMax, golden.Requant{}))
		}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(len(tc.name))))
			g := NewGraph()
			tc.build(g, rng)
			p := verifyGraph(t, tc.cfg, g, 2)
			r, c := copies(p)
			if d := cmp.Diff([2]bool{tc.wantRelayout, tc.wantPart}, [2]bool{r > 0, c > 0}); d != "" {
				t.Errorf("copies (relayout, part) (-want +got):\n%s", d)
			}
		})
	}
}

func TestConcatPermuteErrors(t *testing.T) {
	z := func(shape ...int) *golden.Tensor { return golden.New(shape...) }
	cases := []struct {
		name  string
		build func(g *Graph)
		want  string
	}{
		{"planes differ", func(g *Graph) {
			g.Output("y", g.Concat(g.Input("a", z(2, 3, 3)), g.Input("b", z(2, 3, 4))))
		}, "concat0: operand 1 is 3x4, operand 0 3x3: the planes must be equal"},
		{"ranks differ", func(g *Graph) {
			g.Output("y", g.Concat(g.Input("a", z(2, 3, 3)), g.Input("b", z(1, 2, 3, 3))))
		}, "concat0: operand 1 has shape [1 2 3 3], operand 0 [2 3 3]: want one rank"},
		{"not a feature map", func(g *Graph) {
			g.Output("y", g.Concat(g.Input("a", z(2, 3))))
		}, "concat0: operand 0 has shape [2 3]: want a feature map [C,H,W] or [1,C,H,W]"},
		{"nothing", func(g *Graph) {
			g.Concat()
		}, "concat0: needs at least one value"},
		{"perm repeats a channel", func(g *Graph) {
			g.Output("y", g.PermuteChannels(g.Input("a", z(3, 2, 2)), []int{0, 2, 2}))
		}, "permute0: perm[2] = 2: want a permutation of 0..2 (each channel once)"},
		{"perm too short", func(g *Graph) {
			g.Output("y", g.PermuteChannels(g.Input("a", z(3, 2, 2)), []int{0, 1}))
		}, "permute0: perm has 2 entries, want one per channel (3)"},
		{"shuffle groups", func(g *Graph) {
			g.Output("y", g.ChannelShuffle(g.Input("a", z(6, 2, 2)), 4))
		}, "permute0: channel shuffle in groups = 4: want a divisor of the 6 channels"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			tc.build(g)
			got := ""
			if err := g.Err(); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}
