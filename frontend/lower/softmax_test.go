package lower

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// softmaxNets are the two forms of a network's last Softmax: after a
// Gemm ([1,N], AlexNet, VGG-19, ResNet-50, ...) and after a
// GlobalAveragePool ([1,C,1,1] with opset 9's axis 1: SqueezeNet).
var softmaxNets = []struct {
	name  string
	dims  []int64 // the input's
	sizes []int64 // N
	model func(r *rand.Rand, n int64) *onnxtest.Builder
}{
	{"Gemm, Softmax (opset 13, axis −1)", []int64{1, 2, 4, 4}, []int64{10, 1000}, func(r *rand.Rand, n int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{n, 32}, randFloats(r, n*32, 0.5)...).Float("c", []int64{n}, randFloats(r, n, 0.5)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm", "Gemm", []string{"f", "w", "c"}, "g", i64("transB", 1)).
			Node("softmax", "Softmax", []string{"g"}, "y")
	}},
	{"Conv, GlobalAveragePool, Softmax (opset 9, axis 1)", []int64{1, 2, 4, 4}, []int64{10, 1000}, func(r *rand.Rand, n int64) *onnxtest.Builder {
		return onnxtest.New(9).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{n, 2, 3, 3}, randFloats(r, n*18, 0.5)...).Float("b", []int64{n}, randFloats(r, n, 0.5)...).
			Node("conv", "Conv", []string{"x", "w", "b"}, "c", oints("pads", 1, 1, 1, 1)).
			Node("relu", "Relu", []string{"c"}, "rc").
			Node("gap", "GlobalAveragePool", []string{"rc"}, "g").
			Node("softmax", "Softmax", []string{"g"}, "y")
	}},
	{"Conv, ReduceMean over the plane, keepdims 0, Softmax (opset 13)", []int64{1, 2, 4, 4}, []int64{30}, func(r *rand.Rand, n int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{n, 2, 3, 3}, randFloats(r, n*18, 0.5)...).Float("b", []int64{n}, randFloats(r, n, 0.5)...).
			Node("conv", "Conv", []string{"x", "w", "b"}, "c", oints("pads", 1, 1, 1, 1)).
			Node("mean", "ReduceMean", []string{"c"}, "g", oints("axes", 2, 3), i64("keepdims", 0)).
			Node("softmax", "Softmax", []string{"g"}, "y")
	}},
	// A plane wider than max_kernel: the pool is a planar reduce, a
	// vector of C values.
	{"Conv, GlobalAveragePool of 10x10, Softmax (opset 11)", []int64{1, 2, 10, 10}, []int64{10, 300}, func(r *rand.Rand, n int64) *onnxtest.Builder {
		return onnxtest.New(11).Input("x", 1, 2, 10, 10).Output("y").
			Float("w", []int64{n, 2, 3, 3}, randFloats(r, n*18, 0.5)...).Float("b", []int64{n}, randFloats(r, n, 0.5)...).
			Node("conv", "Conv", []string{"x", "w", "b"}, "c", oints("pads", 1, 1, 1, 1)).
			Node("gap", "GlobalAveragePool", []string{"c"}, "g").
			Node("softmax", "Softmax", []string{"g"}, "y")
	}},
}

// A Softmax over 10 to 1000 values runs on the reference machine bit
// for bit as on the golden models, and its probabilities are within
// 1.5 output steps of the float executor's (the roundings of e and of
// the reciprocal, half a step each at most for the largest
// probabilities, and of the product), plus what the logits' own int8
// error does: up to a step sx on each logit changes x_i − max by up to
// 2sx, so p by a factor e^(±2sx) at most, p ≤ 127 output steps.
func TestSoftmaxLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tc := range softmaxNets {
		for _, n := range tc.sizes {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(tc.name, func(t *testing.T) {
					r := rand.New(rand.NewPCG(seed, 11))
					m := loadModel(t, tc.model(r, n))
					xs := []*onnx.Array{randInput(r, 1, tc.dims...), randInput(r, 1, tc.dims...)}
					net, err := Quantize(m, xs, cfg, Int32Output())
					if err != nil {
						t.Fatal(err)
					}
					if net.Int32Output() {
						t.Errorf("Int32Output took effect on a net whose output is a Softmax")
					}
					name, scale, ok := net.Logits()
					if !ok || name != m.Graph.Nodes[len(m.Graph.Nodes)-1].Inputs[0] || !(scale > 0) {
						t.Errorf("Logits() = %q, %g, %v: want the Softmax's input", name, scale, ok)
					}
					checkAgainstFloat(t, cfg, m, net, xs[0], func(Layer) float64 { return 1.5 + 127*math.Expm1(2*scale) })
				})
			}
		}
	}
}

// The logits, a second output of GraphWithLogits, are the Softmax's
// input as int8 and within one step of their scale of the float ones;
// the Softmax of those int8 logits, computed in float, is within 1.5
// output steps of the NPU's (the roundings of e, R and the product).
func TestSoftmaxLogits(t *testing.T) {
	cfg := npu.DefaultConfig()
	r := rand.New(rand.NewPCG(5, 11))
	m := loadModel(t, softmaxNets[0].model(r, 100))
	x := randInput(r, 1, 1, 2, 4, 4)
	net, err := Quantize(m, []*onnx.Array{x}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := net.GraphWithLogits(x)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	name, scale, _ := net.Logits()
	env, err := m.Graph.Execute(map[string]*onnx.Array{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got, want := ref[name], env[name]
	if got == nil || len(got.Data) != len(want.Data) {
		t.Fatalf("logits %q: %v, want %d values", name, got, len(want.Data))
	}
	var worst float64
	for i, v := range want.Data {
		worst = max(worst, math.Abs(float64(got.Data[i])*scale-float64(v))/scale)
	}
	if worst > 1 {
		t.Errorf("logits: max |int8 − float| = %.3f steps, want at most 1", worst)
	}
	top := slices.Max(got.Data)
	var sum float64
	for _, v := range got.Data {
		sum += math.Exp(float64(v-top) * scale)
	}
	y := ref[net.Output()]
	sy := net.OutputScale()
	worst = 0
	for i, v := range got.Data {
		p := math.Exp(float64(v-top)*scale) / sum
		worst = max(worst, math.Abs(float64(y.Data[i])-p/sy))
	}
	t.Logf("softmax of the int8 logits: max |NPU − float| = %.3f output steps of %.4g", worst, sy)
	if worst > 1.5 {
		t.Errorf("softmax of the int8 logits: max |NPU − float| = %.3f output steps, want at most 1.5", worst)
	}
}
