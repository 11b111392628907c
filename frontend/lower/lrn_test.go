package lower

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// lrnCases are AlexNet's and ZFNet's LRN settings and others: the
// attributes, and how large the Conv's weights before it are (the
// larger, the more the alpha term matters).
var lrnCases = []struct {
	name  string
	attrs []*onnxpb.AttributeProto
	w     float64
}{
	{"AlexNet: size 5, alpha 1e-4, beta 0.75, bias 1", []*onnxpb.AttributeProto{i64("size", 5), flt("alpha", 1e-4), flt("beta", 0.75), flt("bias", 1)}, 30},
	{"ZFNet: size 5, alpha 5e-4, beta 0.75, bias 2", []*onnxpb.AttributeProto{i64("size", 5), flt("alpha", 5e-4), flt("beta", 0.75), flt("bias", 2)}, 30},
	{"size 3, alpha 1, beta 0.5, defaults otherwise", []*onnxpb.AttributeProto{i64("size", 3), flt("alpha", 1), flt("beta", 0.5)}, 0.5},
	{"size 4 (uneven window), spec defaults", []*onnxpb.AttributeProto{i64("size", 4)}, 50},
}

// A Conv (random weights) and an LRN across its 7 channels run on the
// reference machine bit for bit as on the golden models, within 1.5
// output steps (p's and y's roundings, and the sums' below them, see
// lrn.go) plus the input's own int8 error (up to a step of sx, times p
// ≤ bias^−beta) of the float executor.
func TestLRNLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tc := range lrnCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tc.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 13))
				b := onnxtest.New(13).Input("x", 1, 3, 5, 5).Output("y").
					Float("w", []int64{7, 3, 3, 3}, randFloats(r, 7*27, tc.w)...).
					Float("b", []int64{7}, randFloats(r, 7, tc.w/2)...).
					Node("conv", "Conv", []string{"x", "w", "b"}, "c", oints("pads", 1, 1, 1, 1)).
					Node("lrn", "LRN", []string{"c"}, "y", tc.attrs...)
				m := loadModel(t, b)
				xs := []*onnx.Array{randInput(r, 1, 1, 3, 5, 5), randInput(r, 1, 1, 3, 5, 5)}
				net, err := Quantize(m, xs, cfg)
				if err != nil {
					t.Fatal(err)
				}
				// The lrn layer rescales x·p from units sx·sp (InScale) to
				// sy; p is at most 127 steps of sp.
				checkAgainstFloat(t, cfg, m, net, xs[0], func(l Layer) float64 {
					if l.Node != "lrn" {
						return 0
					}
					return 1.5 + 127*l.InScale/l.OutScale
				})
			})
		}
	}
}
