package lower

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
)

// A standalone per-channel affine is a depthwise 1×1 convolution: one NE
// pass per channel tile, whose per-channel requantization applies a[c]
// and b[c] with one rounding. On the Go simulator that costs little more
// than a plain planar requantization of the map (one scale for every
// channel: not the op) and less than the planar alternative that is
// per channel, a multiply and an add by per-channel vectors
// (EltwiseChannel: two passes over the map, two roundings).
func TestAffineDepthwiseCost(t *testing.T) {
	cfg := npu.DefaultConfig()
	c, h, w := 64, 28, 28
	rng := rand.New(rand.NewPCG(1, 2))
	x := golden.New(c, h, w)
	for i := range x.Data {
		x.Data[i] = int64(rng.IntN(255) - 127)
	}
	vec := func() *golden.Tensor {
		v := golden.New(c)
		for i := range v.Data {
			v.Data[i] = int64(rng.IntN(100) + 20)
		}
		return v
	}
	forms := []struct {
		name string
		f    func(g *compiler.Graph, x *compiler.Value) *compiler.Value
	}{
		{"depthwise", func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
			wt := golden.New(c, 1, 1, 1)
			pc := &compiler.ChannelRequant{Scale: make([]int64, c), Bias: make([]int64, c)}
			for i := range wt.Data {
				wt.Data[i], pc.Scale[i], pc.Bias[i] = 127, int64(1000+i), int64(100*i)
			}
			return g.Conv2D(x, wt, compiler.Conv{Groups: c, Requant: golden.Requant{Shift: 16}, PerChannel: pc})
		}},
		{"requant", func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
			return g.Requant(x, golden.Requant{Scale: 3, Shift: 2})
		}},
		{"channel mul, add", func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
			y := g.EltwiseChannel(golden.EltMul, x, g.Input("a", vec()), golden.Requant{Scale: 1, Shift: 4})
			return g.EltwiseChannel(golden.EltAdd, y, g.Input("b", vec()), golden.Requant{Scale: 1})
		}},
	}
	cycles := map[string]int{}
	for _, f := range forms {
		g := compiler.NewGraph()
		g.Output("y", f.f(g, g.Input("x", x)))
		p, err := compiler.Compile(cfg, g)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		res, err := host.Run(cfg, p)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		cycles[f.name] = res.Cycles
		t.Logf("%d×%d×%d %s: %d cycles (%s)", c, h, w, f.name, res.Cycles, p.Summary())
	}
	if d, r, e := cycles["depthwise"], cycles["requant"], cycles["channel mul, add"]; d >= e || 4*d > 5*r {
		t.Errorf("depthwise %d cycles: want fewer than the channel multiply and add's %d and at most 1.25× the plain requantization's %d", d, e, r)
	}
}
