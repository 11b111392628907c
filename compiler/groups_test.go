package compiler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// Grouped and depthwise convolutions on the reference machine, bit for
// bit against golden.Conv2DGroups: groups that fill channel tiles and
// groups that straddle them, depthwise with and without a channel
// multiplier, stride, padding and per-channel requantization.
func TestGroupedConv(t *testing.T) {
	q := golden.Requant{Scale: 1, Shift: 6}
	cases := []struct {
		name                    string
		cfg                     npu.Config
		ci, h, w, co, k, groups int
		stride, pad             int
		perChannel              bool
	}{
		{"two groups of one tile", small(), 8, 5, 5, 8, 3, 2, 1, 1, false},
		{"groups straddle tiles", small(), 6, 5, 4, 6, 3, 2, 1, 1, false},
		{"three groups, fewer outputs", small(), 12, 4, 4, 6, 1, 3, 1, 0, false},
		{"depthwise 3x3", small(), 9, 6, 6, 9, 3, 9, 1, 1, false},
		{"depthwise stride 2", small(), 5, 7, 7, 5, 3, 5, 2, 1, true},
		{"depthwise multiplier 2", small(), 5, 4, 4, 10, 3, 5, 1, 1, false},
		{"narrow array", narrow(), 12, 5, 5, 8, 3, 4, 1, 1, true},
		{"shufflenet-like 1x1, 4 groups of 17", npu.DefaultConfig(), 68, 4, 4, 68, 1, 4, 1, 0, false},
		{"depthwise 32 channels", npu.DefaultConfig(), 32, 7, 7, 32, 3, 32, 1, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.ci), uint64(tc.groups)))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, tc.ci, tc.h, tc.w))
			// A conv first, so the grouped one reads a resident result
			// (psum tiles), then the grouped conv, whose input is a graph
			// input in the second output.
			c := Conv{Stride: tc.stride, PadH: tc.pad, PadW: tc.pad, Requant: q, Groups: tc.groups}
			if tc.perChannel {
				c.PerChannel = &ChannelRequant{Scale: make([]int64, tc.co), Bias: make([]int64, tc.co)}
				for o := range tc.co {
					c.PerChannel.Scale[o], c.PerChannel.Bias[o] = int64(1+o%3), int64(o*5-20)
				}
			}
			wg := randTensor(rng, -128, 127, tc.co, tc.ci/tc.groups, tc.k, tc.k)
			y := g.Conv2D(x, randTensor(rng, -128, 127, tc.ci, tc.ci, 1, 1), Conv{Requant: q})
			g.Output("y", g.Conv2D(y, wg, c))
			g.Output("z", g.Conv2D(x, wg, c))
			verifyGraph(t, tc.cfg, g, 2)
		})
	}
}

// The NE runs only the channel tiles a group touches: the array's MACs
// (vectors × rows × cols, the reference machine's count) against the
// useful ones give the mapping's utilization on the default 16×16
// array. A depthwise conv uses one PE per row (1/16: each input channel
// feeds one output channel); groups of whole tiles use them all.
func TestGroupedConvUtilization(t *testing.T) {
	cases := []struct {
		name                  string
		ci, hw, co, k, groups int
		want                  float64 // useful MACs / array MACs
	}{
		{"dense 1x1, 64 -> 64", 64, 8, 64, 1, 1, 1},
		{"AlexNet-like, 2 groups of 48", 96, 8, 64, 1, 2, 1},
		// Output tiles of 16 straddle groups of 17: 13 passes of the
		// dense 25 (5 output tiles × 5 input tiles).
		{"ShuffleNet 1x1, 4 groups of 17 -> 17", 68, 8, 68, 1, 4, 68.0 * 17 / (13 * 256)},
		{"depthwise 3x3", 64, 8, 64, 3, 64, 1.0 / 16},
		{"groups of 2 channels", 64, 8, 64, 1, 32, 2.0 / 16},
		{"groups of 8 channels", 64, 8, 64, 1, 8, 8.0 / 16},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.groups)))
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, tc.ci, tc.hw, tc.hw))
			w := randTensor(rng, -128, 127, tc.co, tc.ci/tc.groups, tc.k, tc.k)
			g.Output("y", g.Conv2D(x, w, Conv{PadH: tc.k / 2, PadW: tc.k / 2, Requant: golden.Requant{Scale: 1, Shift: 8}, Groups: tc.groups}))
			p := verifyGraph(t, npu.DefaultConfig(), g, 0)
			_, m, err := Interpret(p)
			if err != nil {
				t.Fatal(err)
			}
			got := float64(p.MACs) / float64(m.Stats.NEMACs)
			if d := cmp.Diff(fmt.Sprintf("%.4f", tc.want), fmt.Sprintf("%.4f", got)); d != "" {
				t.Errorf("utilization (useful %d / array %d) (-want +got):\n%s", p.MACs, m.Stats.NEMACs, d)
			}
		})
	}
}

func TestGroupedConvErrors(t *testing.T) {
	z := func(shape ...int) *golden.Tensor { return golden.New(shape...) }
	cases := []struct {
		name  string
		build func(g *Graph)
		want  string
	}{
		{"negative groups", func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(4, 3, 3)), z(4, 4, 1, 1), Conv{Groups: -1}))
		}, "conv2d0: groups = -1 must be at least 1"},
		{"groups do not divide Cin", func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(4, 3, 3)), z(3, 1, 1, 1), Conv{Groups: 3}))
		}, "conv2d0: groups = 3 must divide the input channels (4) and the output channels Cout (3)"},
		{"groups do not divide Cout", func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(4, 3, 3)), z(3, 2, 1, 1), Conv{Groups: 2}))
		}, "conv2d0: groups = 2 must divide the input channels (4) and the output channels Cout (3)"},
		{"weights hold all input channels", func(g *Graph) {
			g.Output("y", g.Conv2D(g.Input("x", z(4, 3, 3)), z(4, 4, 1, 1), Conv{Groups: 2}))
		}, "conv2d0: weights have Cin/groups = 4, want 2 (4 input channels in 2 groups)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			tc.build(g)
			_, err := Compile(small(), g)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

// The two depthwise mappings on a graph input: the direct one (block
// diagonal weights, one pass per tap) and the windows (taps.go: the
// kh·kw taps of each channel along the PE rows, a 1×1 conv). Each PE
// row still feeds one output column either way, so both run the same
// passes at 1/16 of the 16×16 array; the windows also take kh·kw times
// the input's external lines, which is why TapsAuto keeps the direct
// mapping for grouped convs unless the windows take fewer passes.
func TestDepthwiseMappings(t *testing.T) {
	cases := []struct {
		name     string
		cfg      npu.Config
		c, k     int
		taps     TapMapping
		wantUtil string
		wantTaps bool
	}{
		{"direct", npu.DefaultConfig(), 32, 3, TapsAuto, "0.0625", false},
		{"windows", npu.DefaultConfig(), 32, 3, TapsWindows, "0.0625", true},
		{"direct 5x5", npu.DefaultConfig(), 16, 5, TapsDirect, "0.0625", false},
		{"windows 5x5", npu.DefaultConfig(), 16, 5, TapsWindows, "0.0625", true},
		{"windows, 2 groups, 4x4 array", small(), 6, 3, TapsWindows, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.c), uint64(tc.k)))
			groups := tc.c
			if tc.cfg.Rows == 4 {
				groups = 2
			}
			g := NewGraph()
			x := g.Input("x", randTensor(rng, -128, 127, tc.c, 8, 8))
			w := randTensor(rng, -128, 127, tc.c, tc.c/groups, tc.k, tc.k)
			g.Output("y", g.Conv2D(x, w, Conv{PadH: tc.k / 2, PadW: tc.k / 2, Taps: tc.taps, Groups: groups,
				Requant: golden.Requant{Scale: 1, Shift: 7}}))
			p := verifyGraph(t, tc.cfg, g, 1)
			in, _ := p.Input("x")
			if got := in.Lines > tc.c/tc.cfg.Rows*64; got != tc.wantTaps {
				t.Errorf("input of %d lines: windows %v, want %v", in.Lines, got, tc.wantTaps)
			}
			if tc.wantUtil == "" {
				return
			}
			_, m, err := Interpret(p)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantUtil, fmt.Sprintf("%.4f", float64(p.MACs)/float64(m.Stats.NEMACs))); d != "" {
				t.Errorf("utilization (-want +got):\n%s", d)
			}
		})
	}
}
