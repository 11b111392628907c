// Package quant computes post-training int8 quantization parameters for the
// NPU: integer weights, activation scales from calibration, int32 biases,
// and the integer scale, bias and shift of the planar engine's
// post-processor (golden.Requant). It is pure arithmetic; it neither reads
// models nor builds tasks.
//
// Every tensor is quantized symmetrically, real ≈ s·q with zero point 0:
//
//	weights, per output channel o (the leading dimension):
//	    s_w[o] = max|W[o,…]| / 127            (all-zero channel: the largest other s_w, 1 if none)
//	    q      = clamp(round_half_even(W / s_w[o]), −127, 127)
//	activations, per tensor, from the min and max seen in calibration:
//	    s_x    = max(|min|, |max|) / 127       (1 if every value was 0)
//	bias, per output channel, in the accumulator's units:
//	    bias_q[o] = round_half_even(b[o] / (s_x·s_w[o]))   must fit int32
//
// A layer's int32 accumulator acc = Σ q_x·q_w (+ bias_q) holds the real
// value acc·s_x·s_w[o]; its int8 output in units of s_y is
// round(acc·M[o]) with the real multiplier
//
//	M[o] = s_x·s_w[o] / s_y
//
// which the post-processor applies as an integer scale and a right shift,
// M ≈ scale/2^shift, scale ≠ 0 a signed scaleWidth-bit integer and
// 0 ≤ shift ≤ maxShift:
//
//	scale = round_half_even(M·2^shift), shift the largest that keeps
//	        |scale| ≤ 2^(scaleWidth−1) − 1
//	relErr = |scale/2^shift − M| / M
//
// golden.Requant{Scale: scale, Shift: shift}.Apply(acc) is then
// round((acc·scale)/2^shift) with the requantizer's own tie rule, so
// |Apply(acc) − acc·M| ≤ 1/2 + |acc|·M·relErr: within 1 of round(acc·M)
// while |acc|·M·relErr < 1, and equal to it (ties broken by the chosen
// Rounding) when scale/2^shift is exactly M. The shift is one per planar
// task while scale and bias are per lane, so LayerMultipliers fixes one
// shift for all channels of a layer (the one of the largest M) and
// rounds each scale with it.
//
// The bias can ride in the post-processor instead of the accumulator:
// (acc + bias_q)·scale = acc·scale + bias_q·scale, so FoldBias gives the
// requantizer bias bias_q[o]·scale[o], which must fit the task's bias field
// (acc_width bits, signed). When it does not, the bias has to be added to
// the accumulator before requantization instead (bias_q fits int32, the
// accumulator's width), with a requantizer bias of 0.
//
// Asymmetric (uint8 or zero-point) quantization is not supported: the NPU's
// elements are signed int8 and the requantizer has no zero point to add or
// subtract, so a zero point would need extra correction terms in every
// accumulation. Symmetric int8 with −127..127 weights keeps the product of
// two elements symmetric as well.
package quant
