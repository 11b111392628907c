package lower

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// dilationCases are dilated Convs on the graph input x, built from a seed.
var dilationCases = []struct {
	name  string
	model func(r shapeRnd, d []int64) *onnxtest.Builder
	dims  []int64
}{
	{"3x3 dilations 2 pads 2 (atrous, same size)", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{5, d[1], 3, 3}, r.vals(0.6, false, 5, d[1], 3, 3)...).
			Float("b", []int64{5}, r.vals(0.1, false, 5)...).
			Node("conv", "Conv", []string{"x", "w", "b"}, "y", oints("dilations", 2, 2), oints("pads", 2, 2, 2, 2))
	}, []int64{1, 3, 10, 10}},
	{"3x2 dilations [3,2] stride 2 kernel_shape given, Relu", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{4, d[1], 3, 2}, r.vals(0.6, false, 4, d[1], 3, 2)...).
			Node("conv", "Conv", []string{"x", "w"}, "c", oints("dilations", 3, 2), oints("strides", 2, 2), oints("kernel_shape", 3, 2)).
			Node("relu", "Relu", []string{"c"}, "y")
	}, []int64{1, 2, 13, 12}},
	{"depthwise 3x3 dilations 2", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{d[1], 1, 3, 3}, r.vals(0.6, false, d[1], 1, 3, 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "y", oints("dilations", 2, 2), i64("group", d[1]))
	}, []int64{1, 4, 9, 9}},
	{"Conv1d k 3 dilation 4 pads 4 (WaveNet-style)", func(r shapeRnd, d []int64) *onnxtest.Builder {
		return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{3, d[1], 3}, r.vals(0.6, false, 3, d[1], 3)...).
			Node("conv", "Conv", []string{"x", "w"}, "y", oints("dilations", 4), oints("pads", 4, 4), oints("kernel_shape", 3))
	}, []int64{1, 2, 20}},
}

// A dilated Conv runs as the Conv of its spread-out weights: bit for bit
// as the golden models on the reference machine, within the bound of
// TestPadsFolded of the float executor, on seeded random weights and
// inputs.
func TestDilatedConvLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range dilationCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) {
				r := newShapeRnd(seed)
				m := loadModel(t, tt.model(r, tt.dims))
				shape := make([]int, len(tt.dims))
				for i, d := range tt.dims {
					shape[i] = int(d)
				}
				x := &onnx.Array{Shape: shape, Data: r.vals(1, false, tt.dims...)}
				float, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
				if err != nil {
					t.Fatal(err)
				}
				checkFloat(t, cfg, m, x, float["y"], 0)
			})
		}
	}
}
