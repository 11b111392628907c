package lower

import (
	"fmt"
	"math"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// SQNR is the ratio of the reference's energy to the difference's, in
// dB: +Inf for no difference, −Inf for a zero reference.
func TestSQNR(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ref, got []float32
		want     float64
	}{
		{"equal", []float32{1, -2, 3}, []float32{1, -2, 3}, math.Inf(1)},
		{"a tenth off", []float32{1, 1}, []float32{1.1, 0.9}, 20},
		{"a hundredth of the energy", []float32{3, 4}, []float32{3.3, 4.4}, 20},
		{"all wrong", []float32{1, -1}, []float32{-1, 1}, 10 * math.Log10(2.0/8)},
		{"zero reference", []float32{0, 0}, []float32{0, 1}, math.Inf(-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SQNR(tc.ref, func(i int) float64 { return float64(tc.got[i]) })
			if math.IsInf(tc.want, 0) && got != tc.want || !math.IsInf(tc.want, 0) && math.Abs(got-tc.want) > 1e-5 {
				t.Errorf("SQNR = %v dB, want %v", got, tc.want)
			}
		})
	}
}

// QuantizeInput refuses a NaN or an infinity, naming the element, and
// InputBeyond counts the elements past the calibrated range.
func TestQuantizeInputRange(t *testing.T) {
	n := &Net{ins: []netInput{{name: "x", shape: []int{1, 2, 2}, dims: []int{1, 1, 2, 2}, scale: 0.01}}} // range ±1.27
	for _, tc := range []struct {
		name   string
		x      []float32
		err    string
		beyond int
	}{
		{"within", []float32{0, 1.27, -1.27, 0.5}, "", 0},
		{"beyond", []float32{0, 1.28, -3, 0.5}, "", 2},
		{"+Inf", []float32{0, 1, float32(math.Inf(1)), 0}, "lower: input \"x\": element 2 is +Inf", 1},
		{"-Inf", []float32{float32(math.Inf(-1)), 1, 0, 0}, "lower: input \"x\": element 0 is -Inf", 1},
		{"NaN", []float32{0, 0, 0, float32(math.NaN())}, "lower: input \"x\": element 3 is NaN", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &onnx.Array{Shape: []int{1, 1, 2, 2}, Data: tc.x}
			_, err := n.QuantizeInput(x)
			if got := fmt.Sprint(err); tc.err == "" && err != nil || tc.err != "" && got != tc.err {
				t.Errorf("QuantizeInput: %v, want %q", err, tc.err)
			}
			if beyond, limit, _ := n.InputBeyond(x); beyond != tc.beyond || math.Abs(limit-1.27) > 1e-12 {
				t.Errorf("InputBeyond: %d beyond ±%g, want %d beyond ±1.27", beyond, limit, tc.beyond)
			}
		})
	}
}
