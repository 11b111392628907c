package quant

import (
	"fmt"
	"math"
)

// Bias quantizes a layer's float bias into accumulator units:
// bias_q[o] = round_half_even(b[o] / (sx·sw[o])). It fails, naming the
// channel, when a value does not fit int32.
func Bias(b []float32, sx float64, sw []float64) ([]int64, error) {
	if len(b) != len(sw) {
		return nil, fmt.Errorf("quant: %d biases for %d weight scales", len(b), len(sw))
	}
	q := make([]int64, len(b))
	for o, v := range b {
		r := math.RoundToEven(float64(v) / (sx * sw[o]))
		if math.IsNaN(r) || r < math.MinInt32 || r > math.MaxInt32 {
			return nil, fmt.Errorf("quant: bias of output channel %d: %v/(%g·%g) = %g does not fit int32", o, v, sx, sw[o], r)
		}
		q[o] = int64(r)
	}
	return q, nil
}
