package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// splitForms are a Split of x [1,C,4,4] into three parts in each opset's
// form, with the sizes they give.
var splitForms = []struct {
	name  string
	c     int64
	sizes []int
	model func(b *onnxtest.Builder) *onnxtest.Builder
}{
	{"attribute split [1,2,2] (opset 11)", 5, []int{1, 2, 2}, func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.NodeN("split", "Split", []string{"x"}, []string{"p0", "p1", "p2"}, i64("axis", 1), oints("split", 1, 2, 2))
	}},
	{"input split [3,1,2] (opset 13)", 6, []int{3, 1, 2}, func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.Int64("s", []int64{3}, 3, 1, 2).NodeN("split", "Split", []string{"x", "s"}, []string{"p0", "p1", "p2"}, i64("axis", 1))
	}},
	{"equal parts, axis -2 of [1,C,L] (opset 13)", 6, []int{2, 2, 2}, func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.NodeN("split", "Split", []string{"x"}, []string{"p0", "p1", "p2"}, i64("axis", -2))
	}},
	{"num_outputs 3 of 7 channels (opset 18)", 7, []int{3, 3, 1}, func(b *onnxtest.Builder) *onnxtest.Builder {
		return b.NodeN("split", "Split", []string{"x"}, []string{"p0", "p1", "p2"}, i64("axis", 1), i64("num_outputs", 3))
	}},
}

// A Split's parts, concatenated again in another order, are the int8
// input's channels in that order bit for bit on the reference machine
// (each part a channel selection, exact, in the input's scale: the
// concat's range is the input's), on seeded random inputs.
func TestSplitChannels(t *testing.T) {
	cfg := npu.DefaultConfig()
	opsets := []int64{11, 13, 13, 18}
	for i, tt := range splitForms {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) {
				dims := []int64{1, tt.c, 4, 4}
				if i == 2 {
					dims = []int64{1, tt.c, 16} // [1,C,L]: axis -2 is the channels
				}
				b := tt.model(onnxtest.New(opsets[i]).Input("x", dims...).Output("y")).
					Node("cat", "Concat", []string{"p2", "p0", "p1"}, "y", i64("axis", 1))
				m := loadModel(t, b)
				x := &onnx.Array{Data: newShapeRnd(seed).vals(1, false, dims...)}
				for _, d := range dims {
					x.Shape = append(x.Shape, int(d))
				}
				net, err := Quantize(m, []*onnx.Array{x}, cfg)
				if err != nil {
					t.Fatal(err)
				}
				g, err := net.Graph(x)
				if err != nil {
					t.Fatal(err)
				}
				p, err := compiler.Compile(cfg, g)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := compiler.Interpret(p)
				if err != nil {
					t.Fatal(err)
				}
				xq, err := net.QuantizeInput(x)
				if err != nil {
					t.Fatal(err)
				}
				plane := len(xq.Data) / int(tt.c)
				start := []int{0, tt.sizes[0], tt.sizes[0] + tt.sizes[1]}
				var want []int64
				for _, part := range []int{2, 0, 1} {
					want = append(want, xq.Data[start[part]*plane:(start[part]+tt.sizes[part])*plane]...)
				}
				if d := cmp.Diff(want, got["y"].Data); d != "" {
					t.Errorf("concat of the parts (-input's channels +machine):\n%s", d)
				}
				if math.Abs(net.OutputScale()-net.InputScale()) > 0 {
					t.Errorf("output scale %v, want the input's %v", net.OutputScale(), net.InputScale())
				}
			})
		}
	}
}

// A ShuffleNet v2 unit: Split in halves, a 1×1 Conv and Relu on the
// second, Concat, the channel shuffle; within the bound of TestPadsFolded
// of the float executor, plus half a step for the first half's rescale
// to the concat's scale.
func TestSplitShuffleUnit(t *testing.T) {
	cfg := npu.DefaultConfig()
	for seed := uint64(1); seed <= 3; seed++ {
		r := newShapeRnd(seed)
		w := r.vals(0.6, false, 4, 4, 1, 1)
		m := loadModel(t, onnxtest.New(13).Input("x", 1, 8, 5, 5).Output("y").
			NodeN("split", "Split", []string{"x"}, []string{"a", "b"}, i64("axis", 1)).
			Float("w", []int64{4, 4, 1, 1}, w...).
			Node("conv", "Conv", []string{"b", "w"}, "c").
			Node("relu", "Relu", []string{"c"}, "r").
			Node("cat", "Concat", []string{"a", "r"}, "y", i64("axis", 1)))
		x := &onnx.Array{Shape: []int{1, 8, 5, 5}, Data: r.vals(1, false, 1, 8, 5, 5)}
		float, net, g, _ := lowerGraph(t, m, x, cfg)
		ref, err := g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		deq, err := net.Dequantize(ref["y"])
		if err != nil {
			t.Fatal(err)
		}
		sy := net.OutputScale()
		bound := 1 + 0.5*convGain(w, 4)*net.InputScale()/sy + 0.1
		var worst float64
		for i, v := range float["y"].Data {
			worst = max(worst, math.Abs(float64(deq.Data[i]-v))/sy)
		}
		if worst > bound {
			t.Errorf("seed %d: max |int8 − float| = %.2f output steps, more than %.2f", seed, worst, bound)
		}
	}
}

// A Split along another axis is one line naming node, op, attribute and
// what is supported.
func TestSplitErrors(t *testing.T) {
	checkRefused(t, onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
		NodeN("split", "Split", []string{"x"}, []string{"p0", "p1"}, i64("axis", 2)).
		Node("add", "Add", []string{"p0", "p1"}, "y"),
		`node "split" (Split): axis 2 of a [1 2 4 4] value: supported: 1 (the channels)`)
}
