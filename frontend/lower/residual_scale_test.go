package lower

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// An operand of an Add that has no other user is produced in the Add's
// coarser scale, so no planar pass rescales it; an operand with other
// users is still rescaled. Either way the reference machine equals the
// golden models and the sum stays within a few output steps of float.
func TestResidualOperandScale(t *testing.T) {
	cfg := npu.DefaultConfig()
	dims := []int64{1, 8, 6, 6}
	cases := []struct {
		name     string
		model    func(r shapeRnd) *onnxtest.Builder
		requants int // standalone requantizations (eltwise by a scalar) in the graph
	}{
		{"conv branch (fine) plus the block input: the conv writes the input's units", func(r shapeRnd) *onnxtest.Builder {
			return onnxtest.New(13).Input("x", dims...).Output("y").
				Float("w", []int64{8, 8, 3, 3}, r.vals(0.05, false, 8, 8, 3, 3)...).
				Node("c", "Conv", []string{"x", "w"}, "c", oints("pads", 1, 1, 1, 1)).
				Node("s", "Add", []string{"c", "x"}, "s").Node("r", "Relu", []string{"s"}, "y")
		}, 0},
		{"two conv branches (projection shortcut): both in the coarser units", func(r shapeRnd) *onnxtest.Builder {
			return onnxtest.New(13).Input("x", dims...).Output("y").
				Float("w", []int64{8, 8, 3, 3}, r.vals(0.05, false, 8, 8, 3, 3)...).
				Float("wp", []int64{8, 8, 1, 1}, r.vals(0.8, false, 8, 8, 1, 1)...).
				Node("c", "Conv", []string{"x", "w"}, "c", oints("pads", 1, 1, 1, 1)).
				Node("p", "Conv", []string{"x", "wp"}, "p").
				Node("s", "Add", []string{"c", "p"}, "y")
		}, 0},
		{"the fine operand has another user: rescaled by a planar pass", func(r shapeRnd) *onnxtest.Builder {
			return onnxtest.New(13).Input("x", dims...).Output("y").
				Float("w", []int64{8, 8, 3, 3}, r.vals(0.05, false, 8, 8, 3, 3)...).
				Float("w2", []int64{8, 8, 1, 1}, r.vals(0.5, false, 8, 8, 1, 1)...).
				Node("c", "Conv", []string{"x", "w"}, "c", oints("pads", 1, 1, 1, 1)).
				Node("s", "Add", []string{"c", "x"}, "s").
				Node("c2", "Conv", []string{"c", "w2"}, "t").
				Node("s2", "Add", []string{"s", "t"}, "y")
		}, 1},
	}
	for _, tt := range cases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tt.name, func(t *testing.T) {
				r := newShapeRnd(seed)
				m := loadModel(t, tt.model(r))
				x := &onnx.Array{Shape: []int{1, 8, 6, 6}, Data: r.vals(1, false, dims...)}
				float, net, _, ops := lowerGraph(t, m, x, cfg)
				requants := 0
				for _, op := range ops {
					if op.Kind == compiler.OpEltwise && op.Scalar != nil {
						requants++
					}
				}
				if requants != tt.requants {
					t.Errorf("%d standalone requantizations, want %d", requants, tt.requants)
				}
				// The fine operand's rounding (half a step of the coarser
				// scale) and the sum's: about one output step; 2 bounds it.
				checkWithin(t, cfg, net, x, float["y"], 2)
			})
		}
	}
}
