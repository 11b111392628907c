package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// A 1×1 conv of stride s > 1 runs with stride 1 on its input subsampled
// by a 1×1 max pool of stride s, one pool shared by the convs of the
// same input and stride: exact on the reference machine, within
// TestPadsFolded's bound of the float executor.
func TestStridedPointwiseSubsampled(t *testing.T) {
	cfg := npu.DefaultConfig()
	type shape struct {
		Kind   string
		Stride int
		KH     int
	}
	cases := []struct {
		name  string
		dims  []int64
		model func(r shapeRnd, d []int64) *onnxtest.Builder
		want  []shape // the compiler's pools and convs, in order
		bound float64 // output steps from float (two layers' roundings; a wrong pixel is tens)
	}{
		{"1x1 stride 2, one conv", []int64{1, 24, 9, 9}, func(r shapeRnd, d []int64) *onnxtest.Builder {
			return onnxtest.New(13).Input("x", d...).Output("y").Float("w", []int64{20, d[1], 1, 1}, r.vals(0.5, false, 20, d[1], 1, 1)...).
				Node("conv", "Conv", []string{"x", "w"}, "y", oints("strides", 2, 2))
		}, []shape{{"pool", 2, 1}, {"conv2d", 1, 1}}, 0},
		{"1x1 stride 3 then 3x3 stride 2: only the 1x1", []int64{1, 8, 10, 10}, func(r shapeRnd, d []int64) *onnxtest.Builder {
			return onnxtest.New(13).Input("x", d...).Output("y").
				Float("w", []int64{16, d[1], 1, 1}, r.vals(0.5, false, 16, d[1], 1, 1)...).
				Float("w2", []int64{8, 16, 3, 3}, r.vals(0.3, false, 8, 16, 3, 3)...).
				Node("conv", "Conv", []string{"x", "w"}, "a", oints("strides", 3, 3)).Node("relu", "Relu", []string{"a"}, "ar").
				Node("conv2", "Conv", []string{"ar", "w2"}, "y", oints("strides", 2, 2), oints("pads", 1, 1, 1, 1))
		}, []shape{{"pool", 3, 1}, {"conv2d", 1, 1}, {"conv2d", 2, 3}}, 3},
		{"ResNet block: the first conv and the projection share one subsample", []int64{1, 16, 8, 8}, func(r shapeRnd, d []int64) *onnxtest.Builder {
			return onnxtest.New(13).Input("x", d...).Output("y").
				Float("wa", []int64{32, d[1], 1, 1}, r.vals(0.5, false, 32, d[1], 1, 1)...).
				Float("wp", []int64{32, d[1], 1, 1}, r.vals(0.5, false, 32, d[1], 1, 1)...).
				Node("a", "Conv", []string{"x", "wa"}, "a", oints("strides", 2, 2)).Node("ar", "Relu", []string{"a"}, "ar").
				Node("p", "Conv", []string{"x", "wp"}, "p", oints("strides", 2, 2)).
				Node("s", "Add", []string{"ar", "p"}, "y")
		}, []shape{{"pool", 2, 1}, {"conv2d", 1, 1}, {"conv2d", 1, 1}}, 2},
	}
	for _, tt := range cases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) {
				r := newShapeRnd(seed)
				m := loadModel(t, tt.model(r, tt.dims))
				dims := make([]int, len(tt.dims))
				for i, d := range tt.dims {
					dims[i] = int(d)
				}
				x := &onnx.Array{Shape: dims, Data: r.vals(1, false, tt.dims...)}
				float, net, _, ops := lowerGraph(t, m, x, cfg)
				var got []shape
				for _, op := range ops {
					switch op.Kind {
					case compiler.OpPool:
						got = append(got, shape{"pool", op.Pool.Stride, op.Pool.KH})
					case compiler.OpConv2D:
						got = append(got, shape{"conv2d", op.Conv.Stride, op.Weights.Shape[2]})
					}
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("pools and convs (-want +got):\n%s", d)
				}
				if len(m.Graph.Nodes) == 1 {
					checkFloat(t, cfg, m, x, float["y"], 1)
					return
				}
				checkWithin(t, cfg, net, x, float["y"], tt.bound)
			})
		}
	}
}
