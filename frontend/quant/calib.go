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

// QuantizeLinear is ONNX's QuantizeLinear of one value: round half to
// even of x/scale (in float32, as the operator defines it) plus the zero
// point, saturated to lo..hi (the output type's range).
func QuantizeLinear(x, scale float32, zp, lo, hi int64) int64 {
	q := int64(math.RoundToEven(float64(x/scale))) + zp
	return max(min(q, hi), lo)
}

// DequantizeLinear is ONNX's DequantizeLinear of one value: (q − zp)·scale
// in float32.
func DequantizeLinear(q int64, scale float32, zp int64) float32 {
	return float32(q-zp) * scale
}
