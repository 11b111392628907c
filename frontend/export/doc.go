// Package export writes a quantized model as a standard ONNX model whose
// integer core is the NPU's arithmetic bit for bit, so that ONNX Runtime
// (or any conforming runtime) reproduces the NPU's int8 results.
//
// It translates the compiler graph itself (compiler.Graph.Ops): the
// weights, the per-channel scales and biases, the shifts and the pooling
// windows are the graph's, never recomputed. Net wraps the int8 graph of
// a lower.Net in its float input and output; Graph exports an int8 graph
// as it stands. Per operation:
//
//	input            Cast to double, Div by the input scale, Round, Clip ±127, Cast to INT8
//	                 (lower.Net.QuantizeInput)
//	conv2d           ConvInteger (INT8 × INT8 → INT32, zero padding) + post-processor
//	gemm             MatMulInteger (INT8 × INT8 → INT32) + post-processor
//	int32 result     of a conv2d or gemm (lower.Int32Output): the INT32 sums, Add the INT32 bias
//	post-processor   golden.Requant.Apply, per output channel:
//	                 Cast to double, Mul Scale, Add Bias,
//	                 half-up: Add 2^(Shift−1), Mul 2^−Shift, Floor;
//	                 half-even: Mul 2^−Shift, Round;
//	                 Max 0 (ReLU), Min Hi then Max Lo (clamp), Clip −128..127, Cast to INT8
//	max pool         MaxPool on INT8, whose padding never wins (golden.PadIgnore);
//	                 with zero padding (golden.PadZero) a Pad of zeros before it
//	average pool     the window sums: ConvInteger with all-one weights, one group per
//	                 channel (zero padding) + post-processor (which divides)
//	eltwise          Cast to double, Add/Sub/Mul/Max/Min (of two values, a scalar, or a
//	                 per-channel vector Reshaped to broadcast) + post-processor (a lone
//	                 Requant is an add of 0)
//	reduce           ReduceSum (INT32) or ReduceMax (INT8) over all but the channel axis
//	                 + post-processor; with the recip post function: Mul Scale, Add Bias,
//	                 Div 2^K by it, Abs, Floor, Mul Sign (truncation), Where v = 0 the
//	                 engine's 2^(K+1) − 1, then the shift Shift + K − RecipBits (exact
//	                 for K < 53: see functions.go)
//	lookup           the requantization (when not the identity), Cast to INT32, Add 128,
//	                 Gather on the table as an INT8 constant (entry k for the value −128 + k)
//	transpose        of a plain matrix on chip: Transpose
//	concat           Concat on axis 1 of the INT8 parts (the channels)
//	permute          Gather on axis 1 with the constant channel order (a channel shuffle)
//	upsample         Resize of the INT8 map to sizes [1,C,2H,2W], mode nearest,
//	                 coordinate_transformation_mode asymmetric, nearest_mode floor
//	constant         an int8 constant the net reads (lower.Net.Constants: an average
//	                 pool's divisor map): an INT8 initializer
//	view             Flatten (axis 1) or Reshape; Transpose of a GEMM result
//	output           Cast to double, Mul by the output scale (int32: per channel),
//	                 Cast to float (lower.Net.Dequantize); also the integer output
//	                 (RawOutput: "<name>_int8" or "<name>_int32")
//
// Not exported (an error naming the op): min pooling, and max or average pooling with edge
// padding; frontend/lower produces none of them.
//
// # Why the double arithmetic is exact
//
// The NPU's post-processor works on integers; the exported one computes
// in IEEE double precision, which represents every integer of magnitude
// below 2^53 exactly, and the exporter checks per channel that nothing
// gets that large: |acc| ≤ 128·Σ|w| (int8 inputs) must be below 2^31
// (so the INT32 sums do not wrap, which ONNX leaves undefined; likewise
// an int32 result's sums plus bias), and
// 128·Σ|w|·|Scale| + |Bias| + 2^(Shift−1) below 2^53 (for an eltwise or
// a reduction the bound of its exact result takes 128·Σ|w|'s place) (with the default
// 16-bit scales, int32 biases and the planar engine's shifts up to 48 it
// stays below 2^48). Then:
//
//   - acc·Scale, + Bias and + 2^(Shift−1) are sums and products of
//     integers whose exact results are integers below 2^53: IEEE
//     arithmetic returns the exact result whenever it is representable.
//   - Multiplying by 2^−Shift (Shift ≤ 62) changes only the exponent: the
//     result, a multiple of 2^−Shift no smaller than 2^−62 in magnitude
//     unless 0, is far above the subnormal range, so it is exact too.
//   - Floor of an exact value is the exact floor, and
//     floor(v/2^s) + [v − floor(v/2^s)·2^s ≥ 2^(s−1)] (golden's half-up)
//     equals floor((v + 2^(s−1))/2^s): write v = q·2^s + r with
//     0 ≤ r < 2^s; then (v + 2^(s−1))/2^s = q + (r + 2^(s−1))/2^s, and
//     the fraction is in [0, 2), at least 1 exactly when r ≥ 2^(s−1).
//   - ONNX Round rounds half to even, which is golden's half-even on the
//     exact quotient v/2^s.
//   - Max, Min and Clip return one of their operands; the final Cast
//     to INT8 converts an integer in −128..127, exactly.
//
// The input quantization divides in double precision as Go does; IEEE
// division is correctly rounded, so the quotient (rounded or not) is the
// same in both, and Round is math.RoundToEven. The dequantization is one
// double product, as in Go, then one rounding to float32. Both are
// exact reproductions, checked on ties and on every int8 value.
//
// # What is not used, and why
//
// QuantizeLinear and DequantizeLinear compute x/scale and q·scale in
// float32 with a float32 scale: one more rounding than the Go code, so
// results can differ near ties. QLinearConv and QLinearMatMul requantize
// with a float32 multiplier (x_scale·w_scale/y_scale), and how the
// product is rounded is left to the runtime; it is not the NPU's
// integer scale, shift and rounding, so it is not exact in general.
//
// # Opset
//
// The model imports default-domain opset 13. Opset 12 is the least that
// works: it is the first whose MaxPool takes INT8 (ConvInteger and
// MatMulInteger date from 10, Round and Clip with min and max inputs
// from 11). 13 is the opset that gave QuantizeLinear and
// DequantizeLinear their per-channel axis, so a float model quantized
// per channel by other tools (ONNX Runtime's own quantizer wants 13 for
// that) sits in the same opset as the export when the two are compared.
// The ops used here mean the same in every later opset, the IR version
// is 7 (opset 13's release), and frontend/onnx reads opsets 1 to 21, so
// the project's own loader reads the exported files back.
package export
