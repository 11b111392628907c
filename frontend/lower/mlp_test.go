package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// mlp is a 2-layer MLP of n inputs, h hidden units, m outputs from a
// seed, on an input of the form given: "map" [1,n,1,1] flattened, "row"
// [1,n] by Gemm (transB 1, the bias as C), "vector" [n] by MatMul and
// Add (an [m] output). The weights are the same numbers in every form.
func mlp(seed uint64, form string, n, h, m int64) *onnxtest.Builder {
	r := newShapeRnd(seed)
	w1, b1 := r.vals(0.5, false, h, n), r.vals(0.1, false, h) // [out, in]
	w2, b2 := r.vals(0.5, false, m, h), r.vals(0.1, false, m)
	b := onnxtest.New(13).Output("y")
	layer := func(b *onnxtest.Builder, i, x, y string, w, bias []float32, in, out int64) *onnxtest.Builder {
		if form == "row" {
			return b.Float("w"+i, []int64{out, in}, w...).Float("b"+i, []int64{out}, bias...).
				Node("fc"+i, "Gemm", []string{x, "w" + i, "b" + i}, y, i64("transB", 1))
		}
		return b.Float("w"+i, []int64{in, out}, transpose(w, int(out), int(in))...).Float("b"+i, []int64{out}, bias...).
			Node("fc"+i, "MatMul", []string{x, "w" + i}, y+".mm").
			Node("add"+i, "Add", []string{y + ".mm", "b" + i}, y)
	}
	x := "x"
	switch form {
	case "map":
		b = b.Input("x", 1, n, 1, 1).Node("flat", "Flatten", []string{"x"}, "f")
		x = "f"
	case "row":
		b = b.Input("x", 1, n)
	default:
		b = b.Input("x", n)
	}
	b = layer(b, "1", x, "h", w1, b1, n, h).Node("relu", "Relu", []string{"h"}, "r")
	return layer(b, "2", "r", "y", w2, b2, h, m)
}

// A 2-layer MLP on a [1,N] or [N] graph input lowers to the int8 output
// of the same MLP on a [1,N,1,1] map flattened (the path the lowering had),
// bit for bit on the reference machine, and its output keeps the ONNX
// shape.
func TestMLPInputs(t *testing.T) {
	cfg := npu.DefaultConfig()
	const n, h, m = 24, 16, 5
	for seed := uint64(1); seed <= 3; seed++ {
		base := lowerModel(t, cfg, mlp(seed, "map", n, h, m), 1, n, 1, 1)
		want, err := base.g.Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			form string
			dims []int64
			out  []int
		}{{"row", []int64{1, n}, []int{1, m}}, {"vector", []int64{n}, []int{m}}} {
			lw := lowerModel(t, cfg, mlp(seed, tc.form, n, h, m), tc.dims...)
			got, err := lw.g.Reference(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want["y"].Data, got["y"].Data); d != "" {
				t.Errorf("seed %d, %s input: output (-map +%s):\n%s", seed, tc.form, tc.form, d)
			}
			deq, err := lw.net.Dequantize(got["y"])
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.out, deq.Shape); d != "" {
				t.Errorf("seed %d, %s input: output shape (-want +got):\n%s", seed, tc.form, d)
			}
		}
	}
}

// One Gemm on a [1,N] input is within the bound of TestPadsFolded (the
// gain its largest Σ|w| over an output) of the float executor.
func TestGemmOnRowInput(t *testing.T) {
	cfg := npu.DefaultConfig()
	for seed := uint64(1); seed <= 3; seed++ {
		r := newShapeRnd(seed)
		m := loadModel(t, onnxtest.New(13).Input("x", 1, 20).Output("y").Float("w", []int64{6, 20}, r.vals(0.5, false, 6, 20)...).
			Float("c", []int64{6}, r.vals(0.1, false, 6)...).Node("fc", "Gemm", []string{"x", "w", "c"}, "y", i64("transB", 1)))
		x := &onnx.Array{Shape: []int{1, 20}, Data: r.vals(1, false, 1, 20)}
		float, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		checkFloat(t, cfg, m, x, float["y"], 0)
	}
}
