package lower

import (
	"math"
	"testing"
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
