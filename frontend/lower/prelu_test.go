package lower

import (
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// preluCases are the slope forms: one value (a table), one per channel
// as [C,1,1] and [1,C,1,1], and C values before opset 7; the slopes are
// random in ±2 with a 0 among them.
var preluCases = []struct {
	name  string
	opset int64
	shape []int64
}{
	{"one slope", 13, []int64{1}},
	{"per channel [C,1,1]", 13, []int64{5, 1, 1}},
	{"per channel [1,C,1,1]", 13, []int64{1, 5, 1, 1}},
	{"C values, opset 6", 6, []int64{5}},
}

// A Conv (random weights) and a PRelu run on the reference machine bit
// for bit as on the golden models, within half an output step (y's
// rounding) plus 2 steps of the intermediate scale sm (ns's rounding and
// pos's, and the input's own int8 error of up to a step of sx, times
// at most max(1, |slope|)) of the float executor.
func TestPReluLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tc := range preluCases {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(tc.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 17))
				n := int64(1)
				for _, d := range tc.shape {
					n *= d
				}
				slope := randFloats(r, n, 2)
				if n > 1 {
					slope[r.IntN(int(n))] = 0
				}
				b := onnxtest.New(tc.opset).Input("x", 1, 3, 5, 5).Output("y").
					Float("w", []int64{5, 3, 3, 3}, randFloats(r, 5*27, 0.5)...).
					Float("b", []int64{5}, randFloats(r, 5, 0.2)...).
					Float("slope", tc.shape, slope...).
					Node("conv", "Conv", []string{"x", "w", "b"}, "c", oints("pads", 1, 1, 1, 1)).
					Node("prelu", "PRelu", []string{"c", "slope"}, "y")
				m := loadModel(t, b)
				xs := []*onnx.Array{randInput(r, 1, 1, 3, 5, 5), randInput(r, 1, 1, 3, 5, 5)}
				net, err := Quantize(m, xs, cfg)
				if err != nil {
					t.Fatal(err)
				}
				big := 1.0
				for _, v := range slope {
					big = max(big, float64(v), -float64(v))
				}
				checkAgainstFloat(t, cfg, m, net, xs[0], func(l Layer) float64 {
					if l.Node != "prelu" {
						return 0
					}
					if n == 1 { // the table: its rounding and the input's error times the slope
						return 0.5 + big*l.InScale/l.OutScale
					}
					return 0.5 + 2*l.InScale/l.OutScale // InScale is sm here
				})
			})
		}
	}
}
