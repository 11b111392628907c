package export

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/golden"
)

// exactLimit bounds every intermediate value of the post-processor: an
// integer of magnitude below 2^53 is exact in a double.
const exactLimit = 1 << 53

// requant appends golden.Requant.Apply to x, a DOUBLE tensor of
// integers (sums, or an elementwise result), channel o (along the axis
// that chanDims places) requantized with scale[o] and bias[o]; maxAcc[o]
// bounds |x| in channel o. It returns the INT8 result.
//
// Every step is exact in double precision (see the package doc for the
// argument): v = acc·Scale + Bias and v + 2^(Shift−1) are integers below
// 2^53, multiplying by 2^−Shift only moves the exponent, and Floor,
// Round, Max, Min and Clip return one of their (exact) operands or an
// exact integer.
func (t *translator) requant(label, x string, q golden.Requant, scale, bias, maxAcc []int64, chanDims []int64) (string, error) {
	known := golden.Requant{Scale: q.Scale, Bias: q.Bias, Shift: q.Shift, Rounding: q.Rounding,
		Relu: q.Relu, Clamp: q.Clamp, Lo: q.Lo, Hi: q.Hi}
	switch {
	case q != known:
		return "", fmt.Errorf("%s: requantization %+v has a setting the exporter does not translate", label, q)
	case q.Shift < 0 || q.Shift > 62:
		return "", fmt.Errorf("%s: requantization shift %d outside 0..62", label, q.Shift)
	case q.Rounding != golden.HalfUp && q.Rounding != golden.HalfEven:
		return "", fmt.Errorf("%s: rounding %v: the exporter translates half-up and half-even", label, q.Rounding)
	}
	half := int64(0)
	if q.Shift > 0 && q.Rounding == golden.HalfUp {
		half = 1 << (q.Shift - 1)
	}
	s, bs := make([]float64, len(scale)), make([]float64, len(bias))
	for o := range scale {
		// |v + half| ≤ maxAcc·|Scale| + |Bias| + half must stay below
		// 2^53; float64 bounds the check itself from overflowing.
		if b := float64(maxAcc[o])*math.Abs(float64(scale[o])) + math.Abs(float64(bias[o])) + float64(half); b >= exactLimit {
			return "", fmt.Errorf("%s: channel %d: |sum·scale + bias| may reach %.4g, not below 2^53, so a double would not hold it exactly", label, o, b)
		}
		s[o], bs[o] = float64(scale[o]), float64(bias[o])
	}
	b := t.b
	v := b.node("Mul", label+"/scaled", []string{x, b.doubles(label+"/scale", chanDims, s)})
	v = b.node("Add", label+"/biased", []string{v, b.doubles(label+"/bias", chanDims, bs)})
	if q.Shift > 0 {
		if q.Rounding == golden.HalfUp {
			// floor(v/2^s) + (rem ≥ 2^(s−1)) = floor((v + 2^(s−1)) / 2^s)
			v = b.node("Add", label+"/plus_half", []string{v, b.scalar(label+"/half", float64(half))})
			v = b.node("Mul", label+"/shifted", []string{v, b.scalar(label+"/inv_2^shift", math.Ldexp(1, -q.Shift))})
			v = b.node("Floor", label+"/rounded", []string{v})
		} else {
			// ONNX Round rounds half to even.
			v = b.node("Mul", label+"/shifted", []string{v, b.scalar(label+"/inv_2^shift", math.Ldexp(1, -q.Shift))})
			v = b.node("Round", label+"/rounded", []string{v})
		}
	}
	if q.Relu {
		v = b.node("Max", label+"/relu", []string{v, b.scalar(label+"/zero", 0)})
	}
	if q.Clamp { // golden's order: min with Hi first, then max with Lo
		v = b.node("Min", label+"/clamp_hi", []string{v, b.scalar(label+"/hi", float64(q.Hi))})
		v = b.node("Max", label+"/clamp_lo", []string{v, b.scalar(label+"/lo", float64(q.Lo))})
	}
	elem := golden.S(8)
	v = b.node("Clip", label+"/saturated", []string{v,
		b.scalar(label+"/int8_min", float64(elem.Min())), b.scalar(label+"/int8_max", float64(elem.Max()))})
	return b.cast(v, label, onnxpb.TensorProto_INT8), nil
}

// int32Out appends the int32 result of a conv or GEMM: the sums plus
// bias[o] per channel o (along the axis chanDims places; nil: none). The
// NPU wraps acc + bias to int32; ONNX's INT32 Add leaves an overflow
// undefined, so a bound maxAcc[o] + |bias[o]| beyond int32 is refused.
func (t *translator) int32Out(label, acc string, bias, maxAcc []int64, chanDims []int64) (string, error) {
	if bias == nil {
		return acc, nil
	}
	for o, b := range bias {
		if m := maxAcc[o] + max(b, -b); m > 1<<31-1 {
			return "", fmt.Errorf("%s: channel %d: sums plus bias may reach %d, beyond int32", label, o, m)
		}
	}
	return t.b.node("Add", label, []string{acc, t.b.int32s(label+"/bias", chanDims, bias)}), nil
}

// channelParams is the scale and bias of each of n channels: the
// per-channel table, or the layer's own for every channel.
func channelParams(q golden.Requant, pc *compiler.ChannelRequant, n int) (scale, bias []int64) {
	if pc != nil {
		return pc.Scale, pc.Bias
	}
	scale, bias = make([]int64, n), make([]int64, n)
	for o := range scale {
		scale[o], bias[o] = q.Scale, q.Bias
	}
	return scale, bias
}
