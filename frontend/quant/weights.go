package quant

import (
	"cmp"
	"fmt"
	"math"
)

// QMax is the largest magnitude of a quantized weight or activation: the
// range is symmetric, −127..127, so −128 is never produced.
const QMax = 127

// Weights quantizes w (a float tensor in row-major order whose leading
// dimension is the outChannels output channels, e.g. a Conv's
// [M, C/group, kH, kW]) per output channel. It returns the int8 values as
// int64, the element type of golden.Tensor, and the scale of each channel.
// A Gemm or MatMul weight must be laid out output channel first.
func Weights(w []float32, outChannels int) (q []int64, scales []float64, err error) {
	if outChannels < 1 || len(w)%outChannels != 0 {
		return nil, nil, fmt.Errorf("quant: %d weights do not split into %d output channels", len(w), outChannels)
	}
	per := len(w) / outChannels
	q = make([]int64, len(w))
	scales = make([]float64, outChannels)
	for o := range outChannels {
		ch := w[o*per : (o+1)*per]
		var m float64
		for i, v := range ch {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, nil, fmt.Errorf("quant: weight %d of output channel %d is %v", i, o, v)
			}
			m = max(m, math.Abs(f))
		}
		if m == 0 {
			continue // all zero: q 0, any scale (below)
		}
		s := m / QMax
		scales[o] = s
		for i, v := range ch {
			q[o*per+i] = clampQ(math.RoundToEven(float64(v) / s))
		}
	}
	// Any scale represents an all-zero channel (a pruned one, a zero
	// BatchNormalization scale folded in) exactly: it takes the largest of
	// the others (1 when all are zero), so that its requantization
	// multiplier never exceeds theirs and sets the layer's one shift
	// (LayerMultipliers).
	top := 0.0
	for _, s := range scales {
		top = max(top, s)
	}
	for o, s := range scales {
		if s == 0 {
			scales[o] = cmp.Or(top, 1)
		}
	}
	return q, scales, nil
}

// clampQ limits a rounded quotient to −QMax..QMax; only the channel's
// maximum can land a hair outside, through the division's rounding.
func clampQ(v float64) int64 {
	return int64(min(max(v, -QMax), QMax))
}
