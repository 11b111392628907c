package lower

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// This file computes the post-processing of a reduction that ends in a
// square root or a reciprocal (compiler.Reduction's Post). The planar
// engine applies the post function u = p(v) to v = S·Scale (S the int
// sum of the reduced int8 values, scale sx each, or for a max reduction
// their maximum: a "sum" of one value) and then shifts u right by s with
// the requantization's rounding, ReLU, clamp and saturation:
//
//	sqrt:  y = round(floor(√(S·Scale)) / 2^s)
//	recip: y = round(trunc(2^K / (S·Scale)) / 2^s)
//
// K is the engine's reciprocal exponent (planar RecipShift, 47 for the
// default configuration). The float value is √(sx·S/div) or
// div/(sx·S) (div is the count of a ReduceMean, else 1) and the output
// is int8 in units of its calibrated scale sy, so
//
//	sqrt:  Scale/4^s   ≈ sx/(div·sy²)
//	recip: Scale/2^s   ≈ 2^−K · div/(sx·sy)  (i.e. 2^(K−s)/Scale ≈ div/(sx·sy))
//
// Scale is the largest that fits scale_width signed bits and keeps
// |S·Scale| below 2^K for every sum the int8 values can make (the engine
// needs |v| < 2^K), which makes its rounding the only sizeable error of
// the multiplier: relative 2^−(scale_width−1) at worst, half of that
// after the square root. floor(√v) and trunc(2^K/v) lose less than one
// unit of u, 2^−s output steps, so the result is within half an output
// step (the final rounding) plus the multiplier's error of the exact
// value. Out of the float domain: a negative sum gives 0 for sqrt (ONNX:
// NaN), and a zero sum the largest value for recip (ONNX: ±Inf), which
// saturates to 127.

// postRequant computes the Reduction fields (Requant, RecipBits) of a
// reduction with post p of sums of at most maxSum int8 values of scale
// sx (1 for a maximum), each divided by div, to int8 of scale sy, and
// records the layer.
func (l *lowering) postRequant(name string, p golden.PostFn, sx, sy float64, div, maxSum int) (compiler.Reduction, error) {
	k, maxShift := l.cfg.Planar().RecipShift(), l.cfg.Planar().MaxShift()
	limit := min(float64(golden.S(l.cfg.ScaleWidth).Max()), math.Floor((math.Ldexp(1, k)-1)/float64(128*maxSum)))
	var m float64
	var exp func(s int) int // Scale ≈ m·2^exp(s)
	switch p {
	case golden.PostSqrt:
		m, exp = sx/(float64(div)*sy*sy), func(s int) int { return 2 * s }
	case golden.PostRecip:
		m, exp = sx*sy/float64(div), func(s int) int { return k - s }
		maxShift = min(maxShift, k) // RecipBits = K − s must not be negative
	default:
		return compiler.Reduction{}, fmt.Errorf("post function %v: want sqrt or recip", p)
	}
	if !(m > 0) || math.IsInf(m, 0) {
		return compiler.Reduction{}, fmt.Errorf("%v of scales %.4g to %.4g over %d values: multiplier %g is not a positive finite number", p, sx, sy, div, m)
	}
	// sqrt: the largest shift whose scale fits; recip: the smallest.
	shifts := make([]int, 0, maxShift+1)
	for s := 0; s <= maxShift; s++ {
		shifts = append(shifts, s)
	}
	if p == golden.PostSqrt {
		for i, j := 0, len(shifts)-1; i < j; i, j = i+1, j-1 {
			shifts[i], shifts[j] = shifts[j], shifts[i]
		}
	}
	for _, s := range shifts {
		sc := math.RoundToEven(math.Ldexp(m, exp(s)))
		if sc > limit {
			continue
		}
		if sc == 0 {
			return compiler.Reduction{}, fmt.Errorf("%v of scales %.4g to %.4g over %d values: multiplier %g too small: the scale rounds to 0 at shift %d", p, sx, sy, div, m, s)
		}
		rel := math.Abs(math.Ldexp(sc, -exp(s))-m) / m
		if p == golden.PostSqrt {
			rel /= 2 // √ halves a relative error
		}
		l.net.Layers = append(l.net.Layers, Layer{Node: name, InScale: sx, OutScale: sy, Shift: s, WorstRelErr: rel})
		r := compiler.Reduction{Post: p, Requant: golden.Requant{Scale: int64(sc), Shift: s, Rounding: l.opt.rounding}}
		if p == golden.PostRecip {
			// The compiler shifts by Shift + K − RecipBits: s.
			r.RecipBits, r.Requant.Shift = k-s, 0
		}
		return r, nil
	}
	return compiler.Reduction{}, fmt.Errorf("%v of scales %.4g to %.4g over %d values: multiplier %g too large for a %d-bit scale below %g at any shift 0..%d",
		p, sx, sy, div, m, l.cfg.ScaleWidth, limit, maxShift)
}
