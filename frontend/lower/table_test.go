package lower

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// randFloats are n seeded uniform values in ±scale.
func randFloats(r *rand.Rand, n int64, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(scale * (2*r.Float64() - 1))
	}
	return v
}

// randInput is a seeded random graph input of dims in ±scale.
func randInput(r *rand.Rand, scale float64, dims ...int64) *onnx.Array {
	shape := make([]int, len(dims))
	n := int64(1)
	for i, d := range dims {
		shape[i], n = int(d), n*d
	}
	return &onnx.Array{Shape: shape, Data: randFloats(r, n, scale)}
}

// tableCases are the activations lowered through the lookup table, each
// with the attribute values under test and the largest slope of its
// function on the int8 range of its input (scale sx: |x| ≤ 128·sx).
var tableCases = []struct {
	op    string
	attrs []*onnxpb.AttributeProto
	slope any // float64, or func(sx float64) float64
}{
	{"Sigmoid", nil, 0.25},
	{"Tanh", nil, 1.0},
	{"Exp", nil, func(sx float64) float64 { return math.Exp(128 * sx) }},
	{"HardSigmoid", nil, 0.2},
	{"HardSigmoid", []*onnxpb.AttributeProto{flt("alpha", 0.5), flt("beta", 0.25)}, 0.5},
	{"HardSwish", nil, 1.5},
	{"Elu", nil, 1.0},
	{"Elu", []*onnxpb.AttributeProto{flt("alpha", 2)}, 2.0},
	{"LeakyRelu", nil, 1.0},
	{"LeakyRelu", []*onnxpb.AttributeProto{flt("alpha", 0.3)}, 1.0},
}

// A Conv (random weights) and then each activation: the lookup runs on
// the reference machine bit for bit as the golden models (compiler.
// Interpret vs Graph.Reference), and the dequantized output is within
// half an output step (the table's rounding) plus slope·δ of the float
// executor's, δ the int8 error of the table's input, the Conv's output:
// at most one step of its scale (its own rounding and the input's and
// weights' carried through, as for mnist-7's chain).
func TestTableLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tc := range tableCases {
		for seed := uint64(1); seed <= 3; seed++ {
			name := tc.op
			if tc.attrs != nil {
				name += " attrs"
			}
			t.Run(name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 7))
				opset := int64(13)
				if tc.op == "HardSwish" {
					opset = 14
				}
				b := onnxtest.New(opset).Input("x", 1, 3, 5, 5).Output("y").
					Float("w", []int64{4, 3, 3, 3}, randFloats(r, 4*3*3*3, 0.3)...).
					Float("b", []int64{4}, randFloats(r, 4, 0.2)...).
					Node("conv", "Conv", []string{"x", "w", "b"}, "c", oints("pads", 1, 1, 1, 1)).
					Node("act", tc.op, []string{"c"}, "y", tc.attrs...)
				m := loadModel(t, b)
				xs := []*onnx.Array{randInput(r, 1, 1, 3, 5, 5), randInput(r, 1, 1, 3, 5, 5)}
				net, err := Quantize(m, xs, cfg)
				if err != nil {
					t.Fatal(err)
				}
				checkAgainstFloat(t, cfg, m, net, xs[0], func(l Layer) float64 {
					if l.Node != "act" {
						return 0
					}
					slope, ok := tc.slope.(float64)
					if !ok {
						slope = tc.slope.(func(float64) float64)(l.InScale)
					}
					return 0.5 + slope*l.InScale/l.OutScale
				})
			})
		}
	}
}

// checkAgainstFloat runs net on x on the reference machine, checks it
// against the golden models bit for bit, and its dequantized output
// against the float executor within the steps (output steps) that bound
// gives the net's last layer it names (the largest over the layers).
func checkAgainstFloat(t *testing.T, cfg npu.Config, m *onnx.Model, net *Net, x *onnx.Array, bound func(Layer) float64) float64 {
	t.Helper()
	float, err := m.Graph.Run(map[string]*onnx.Array{m.Graph.Inputs[0].Name: x})
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
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := net.Output()
	if d := cmp.Diff(ref[out], got[out]); d != "" {
		t.Fatalf("reference machine vs golden models (-golden +machine):\n%s", d)
	}
	deq, err := net.Dequantize(got[out])
	if err != nil {
		t.Fatal(err)
	}
	var steps float64
	for _, l := range net.Layers {
		steps = max(steps, bound(l))
	}
	step := net.OutputScale()
	var worst float64
	for i, v := range float[out].Data {
		worst = max(worst, math.Abs(float64(deq.Data[i]-v))/step)
	}
	t.Logf("max |int8 − float| = %.3f output steps of %.4g (bound %.3f)", worst, step, steps)
	if worst > steps+1e-6 {
		t.Errorf("max |int8 − float| = %.3f output steps, more than %.3f\n int8 %v\nfloat %v", worst, steps, deq.Data, float[out].Data)
	}
	return worst
}
