package quant

import (
	"fmt"
	"math"
)

// Calibrator accumulates the range of one activation tensor over
// calibration inputs. The zero value is ready to use.
type Calibrator struct {
	Min, Max float32 // valid once a value has been seen
	N        int     // tensors observed
	seen     bool
}

// Observe widens the range by the values of one tensor. It rejects NaN
// and infinities, which have no int8 scale.
func (c *Calibrator) Observe(x []float32) error {
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("quant: calibration tensor %d, element %d is %v", c.N, i, v)
		}
	}
	for _, v := range x {
		if !c.seen {
			c.Min, c.Max, c.seen = v, v, true
		}
		c.Min, c.Max = min(c.Min, v), max(c.Max, v)
	}
	c.N++
	return nil
}

// Scale is the symmetric int8 scale of the observed range,
// max(|Min|, |Max|)/127, or 1 when every value was 0.
func (c *Calibrator) Scale() (float64, error) {
	if !c.seen {
		return 0, fmt.Errorf("quant: calibration observed no values (%d tensors)", c.N)
	}
	m := max(math.Abs(float64(c.Min)), math.Abs(float64(c.Max)))
	if m == 0 {
		return 1, nil
	}
	return m / QMax, nil
}
