package lower

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/golden"
)

// reluConv is the graph input [1,2,H,W] through a 3x3 Conv to 3
// channels and a Relu: non-negative sums for a Sqrt.
func reluConv(opset int64, h, w int64, phase float64) *onnxtest.Builder {
	b := onnxtest.New(opset).Input("x", 1, 2, h, w).Output("y")
	return conv(b, "conv", "x", "c", 3, 2, phase).Node("relu", "Relu", []string{"c"}, "r")
}

// absInput is |x| of the graph input [1,2,H,W]: sums well away from 0,
// for a Reciprocal.
func absInput(opset int64, h, w int64) *onnxtest.Builder {
	return onnxtest.New(opset).Input("x", 1, 2, h, w).Output("y").Node("abs", "Abs", []string{"x"}, "r")
}

// reduceCases are small nets of the reductions, GlobalMaxPool, Sqrt,
// Reciprocal, Min and Max, as opCases. The reduction's own error is half an output step plus
// the multiplier's; the rest is the int8 roundings of the values reduced,
// each up to half a step of their scale, which a sum of n adds up (n/2
// steps of the input's scale at worst, about √n/2 typically): 1 output
// step when the output's scale is coarser than the values', 1.5 when a
// mean makes it finer. A Min's output range can be narrower than both
// operands' (min(c, relu(r)) ≤ relu(r)): their roundings and the
// rescaled operand's then count more output steps, hence 2. A maximum is
// one of the int8 values: its rounding (half a step of its scale) and the
// rescale's (half an output step) make 1 step when the two scales are
// close.
var reduceCases = []struct {
	name  string
	model func() *onnxtest.Builder
	dims  []int64
	steps float64
}{
	{"ReduceSum axes [2 3] attribute (opset 11), keepdims: a pool", func() *onnxtest.Builder {
		return reluConv(11, 4, 4, 30).Node("sum", "ReduceSum", []string{"r"}, "y", oints("axes", 2, 3))
	}, []int64{1, 2, 4, 4}, 1},
	{"ReduceSum axes input [-1 -2], keepdims 0: a reduce, then MatMul", func() *onnxtest.Builder {
		return reluConv(13, 4, 4, 31).Int64("axes", []int64{2}, -1, -2).
			Node("sum", "ReduceSum", []string{"r", "axes"}, "s", i64("keepdims", 0)).
			Float("w", []int64{3, 2}, posWave(32, 1, 3, 2)...).
			Node("fc", "MatMul", []string{"s", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"ReduceMean of a 10x10 plane: a reduce, Flatten, Gemm", func() *onnxtest.Builder {
		return reluConv(13, 10, 10, 33).
			Node("mean", "ReduceMean", []string{"r"}, "m", oints("axes", 2, 3)).
			Node("flat", "Flatten", []string{"m"}, "f").
			Float("w", []int64{2, 3}, posWave(34, 1, 2, 3)...).
			Node("gemm", "Gemm", []string{"f", "w"}, "y", i64("transB", 1))
	}, []int64{1, 2, 10, 10}, 1.5},
	{"ReduceMean axes input (opset 18), keepdims 0: a reduce, then MatMul", func() *onnxtest.Builder {
		return reluConv(18, 4, 4, 39).Int64("axes", []int64{2}, 2, 3).
			Node("mean", "ReduceMean", []string{"r", "axes"}, "s", i64("keepdims", 0)).
			Float("w", []int64{3, 2}, posWave(40, 1, 3, 2)...).
			Node("fc", "MatMul", []string{"s", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"ReduceMean axes [2], keepdims: an Hx1 pool", func() *onnxtest.Builder {
		return reluConv(13, 4, 5, 35).Node("mean", "ReduceMean", []string{"r"}, "y", oints("axes", 2))
	}, []int64{1, 2, 4, 5}, 1.5},
	{"ReduceSum axes [2], keepdims 0: a reduce across rows", func() *onnxtest.Builder {
		return reluConv(11, 4, 5, 36).Node("sum", "ReduceSum", []string{"r"}, "y", oints("axes", 2), i64("keepdims", 0))
	}, []int64{1, 2, 4, 5}, 1},
	{"ReduceSum then Sqrt: sqrt post function", func() *onnxtest.Builder {
		return reluConv(13, 4, 4, 37).Int64("axes", []int64{2}, 2, 3).
			Node("sum", "ReduceSum", []string{"r", "axes"}, "s").
			Node("sqrt", "Sqrt", []string{"s"}, "y")
	}, []int64{1, 2, 4, 4}, 1},
	{"ReduceMean across rows then Sqrt", func() *onnxtest.Builder {
		return reluConv(13, 4, 5, 38).
			Node("mean", "ReduceMean", []string{"r"}, "m", oints("axes", 2)).
			Node("sqrt", "Sqrt", []string{"m"}, "y")
	}, []int64{1, 2, 4, 5}, 1},
	{"ReduceMean then Reciprocal: recip post function", func() *onnxtest.Builder {
		return absInput(13, 4, 4).
			Node("mean", "ReduceMean", []string{"r"}, "m", oints("axes", 2, 3)).
			Node("recip", "Reciprocal", []string{"m"}, "y")
	}, []int64{1, 2, 4, 4}, 1},
	{"ReduceSum keepdims 0 then Reciprocal, then MatMul", func() *onnxtest.Builder {
		return absInput(13, 4, 4).Int64("axes", []int64{2}, 2, 3).
			Node("sum", "ReduceSum", []string{"r", "axes"}, "s", i64("keepdims", 0)).
			Node("recip", "Reciprocal", []string{"s"}, "q").
			Float("w", []int64{2, 3}, posWave(39, 1, 2, 3)...).
			Node("fc", "MatMul", []string{"q", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"ReduceSum keepdims 0, Sqrt fused, a standalone Reciprocal of the [1,C], MatMul", func() *onnxtest.Builder {
		return absInput(11, 4, 4).
			Node("sum", "ReduceSum", []string{"r"}, "s", oints("axes", 2, 3), i64("keepdims", 0)).
			Node("sqrt", "Sqrt", []string{"s"}, "n").
			Node("recip", "Reciprocal", []string{"n"}, "q").
			Float("w", []int64{2, 3}, posWave(46, 1, 2, 3)...).
			Node("fc", "MatMul", []string{"q", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"ReduceSum across 10 rows (beyond max_kernel): a rowsum, Flatten, MatMul", func() *onnxtest.Builder {
		return reluConv(11, 10, 3, 47).
			Node("sum", "ReduceSum", []string{"r"}, "s", oints("axes", 2)).
			Node("flat", "Flatten", []string{"s"}, "f").
			Float("w", []int64{9, 2}, posWave(48, 1, 9, 2)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 10, 3}, 1.5},
	{"GlobalAveragePool then a standalone Sqrt", func() *onnxtest.Builder {
		return reluConv(13, 4, 4, 40).
			Node("gap", "GlobalAveragePool", []string{"r"}, "p").
			Node("sqrt", "Sqrt", []string{"p"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"ReduceMax axes [2 3] attribute (opset 13), keepdims: a max pool", func() *onnxtest.Builder {
		return reluConv(13, 4, 4, 50).Node("max", "ReduceMax", []string{"r"}, "y", oints("axes", 2, 3))
	}, []int64{1, 2, 4, 4}, 1},
	{"ReduceMax of a conv without Relu (negative maxima), axes [-2 -1]", func() *onnxtest.Builder {
		b := onnxtest.New(11).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv", "x", "c", 3, 2, 51).Node("max", "ReduceMax", []string{"c"}, "y", oints("axes", -2, -1))
	}, []int64{1, 2, 4, 4}, 1},
	{"ReduceMax axes input (opset 18) [-1 -2], keepdims 0: a reduce max, then MatMul", func() *onnxtest.Builder {
		return reluConv(18, 4, 4, 52).Int64("axes", []int64{2}, -1, -2).
			Node("max", "ReduceMax", []string{"r", "axes"}, "s", i64("keepdims", 0)).
			Float("w", []int64{3, 2}, posWave(53, 1, 3, 2)...).
			Node("fc", "MatMul", []string{"s", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"ReduceMax axes [2], keepdims: an Hx1 max pool", func() *onnxtest.Builder {
		return reluConv(13, 4, 5, 54).Node("max", "ReduceMax", []string{"r"}, "y", oints("axes", 2))
	}, []int64{1, 2, 4, 5}, 1},
	{"ReduceMax axes input [2] (opset 18), keepdims 0: a rowmax", func() *onnxtest.Builder {
		return reluConv(18, 4, 5, 55).Int64("axes", []int64{1}, 2).
			Node("max", "ReduceMax", []string{"r", "axes"}, "y", i64("keepdims", 0))
	}, []int64{1, 2, 4, 5}, 1},
	{"ReduceMax of a 10x10 plane: a reduce max, Flatten, Gemm", func() *onnxtest.Builder {
		return reluConv(13, 10, 10, 56).
			Node("max", "ReduceMax", []string{"r"}, "m", oints("axes", 2, 3)).
			Node("flat", "Flatten", []string{"m"}, "f").
			Float("w", []int64{2, 3}, posWave(57, 1, 2, 3)...).
			Node("gemm", "Gemm", []string{"f", "w"}, "y", i64("transB", 1))
	}, []int64{1, 2, 10, 10}, 1.5},
	{"ReduceMax across 10 rows (beyond max_kernel), keepdims: a rowmax, Flatten, MatMul", func() *onnxtest.Builder {
		return reluConv(11, 10, 3, 58).
			Node("max", "ReduceMax", []string{"r"}, "s", oints("axes", 2)).
			Node("flat", "Flatten", []string{"s"}, "f").
			Float("w", []int64{9, 2}, posWave(59, 1, 9, 2)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 10, 3}, 1.5},
	{"ReduceMax then Sqrt: sqrt post function of a maximum", func() *onnxtest.Builder {
		return reluConv(13, 4, 4, 60).
			Node("max", "ReduceMax", []string{"r"}, "m", oints("axes", 2, 3)).
			Node("sqrt", "Sqrt", []string{"m"}, "y")
	}, []int64{1, 2, 4, 4}, 1},
	{"ReduceMax across rows then Reciprocal: recip post function of a rowmax", func() *onnxtest.Builder {
		return absInput(18, 4, 4).Int64("axes", []int64{1}, 2).
			Node("max", "ReduceMax", []string{"r", "axes"}, "m").
			Node("recip", "Reciprocal", []string{"m"}, "y")
	}, []int64{1, 2, 4, 4}, 1},
	{"GlobalMaxPool of 4x4: a max pool, then a 1x1 Conv", func() *onnxtest.Builder {
		b := reluConv(13, 4, 4, 61).Node("gmp", "GlobalMaxPool", []string{"r"}, "p")
		return conv(b, "cls", "p", "y", 2, 3, 62)
	}, []int64{1, 2, 4, 4}, 1.5},
	{"GlobalMaxPool of 10x10: a reduce max, Flatten, MatMul", func() *onnxtest.Builder {
		return reluConv(13, 10, 10, 63).
			Node("gmp", "GlobalMaxPool", []string{"r"}, "p").
			Node("flat", "Flatten", []string{"p"}, "f").
			Float("w", []int64{3, 2}, posWave(64, 1, 3, 2)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 10, 10}, 1.5},
	{"GlobalMaxPool then a standalone Reciprocal", func() *onnxtest.Builder {
		return absInput(13, 4, 4).
			Node("gmp", "GlobalMaxPool", []string{"r"}, "p").
			Node("recip", "Reciprocal", []string{"p"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Max of two feature maps of different scales", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		b = conv(b, "conv1", "x", "c1", 2, 2, 65).Node("relu1", "Relu", []string{"c1"}, "r1")
		return conv(b, "conv2", "r1", "c2", 2, 2, 66).
			Node("max", "Max", []string{"c2", "r1"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Max, Clip after it, Flatten, MatMul", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		b = conv(b, "conv1", "x", "c1", 2, 2, 67)
		return conv(b, "conv2", "x", "c2", 2, 2, 68).
			Node("max", "Max", []string{"c1", "c2"}, "m").
			Float("lo", []int64{}, 0).Float("hi", []int64{}, 1).
			Node("clip", "Clip", []string{"m", "lo", "hi"}, "k").
			Node("flat", "Flatten", []string{"k"}, "f").
			Float("w", []int64{32, 3}, posWave(69, 0.5, 32, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Min of two feature maps of different scales", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		b = conv(b, "conv1", "x", "c1", 2, 2, 41).Node("relu1", "Relu", []string{"c1"}, "r1")
		return conv(b, "conv2", "r1", "c2", 2, 2, 42).
			Node("min", "Min", []string{"c2", "r1"}, "y")
	}, []int64{1, 2, 4, 4}, 2},
	{"Min, Relu after it, Flatten, MatMul", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		b = conv(b, "conv1", "x", "c1", 2, 2, 43)
		return conv(b, "conv2", "x", "c2", 2, 2, 44).
			Node("min", "Min", []string{"c1", "c2"}, "m").
			Node("relu", "Relu", []string{"m"}, "r").
			Node("flat", "Flatten", []string{"r"}, "f").
			Float("w", []int64{32, 3}, posWave(45, 0.5, 32, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Max with the constant 0 (a ReLU written as Max), Flatten, MatMul", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv1", "x", "c1", 2, 2, 46).
			Float("zero", []int64{}, 0).
			Node("max", "Max", []string{"c1", "zero"}, "m").
			Node("flat", "Flatten", []string{"m"}, "f").
			Float("w", []int64{32, 3}, posWave(47, 0.5, 32, 3)...).
			Node("fc", "MatMul", []string{"f", "w"}, "y")
	}, []int64{1, 2, 4, 4}, 1.5},
	{"Min with a constant first, of a feature map", func() *onnxtest.Builder {
		b := onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y")
		return conv(b, "conv1", "x", "c1", 2, 2, 48).
			Float("k", []int64{1}, 0.25).
			Node("min", "Min", []string{"k", "c1"}, "y")
	}, []int64{1, 2, 4, 4}, 2},
}

// Each reduction, GlobalMaxPool, Sqrt, Reciprocal, Min and Max lowers
// and runs on the
// reference machine bit for bit the golden models, within the case's
// steps of the float executor.
func TestReduceLowered(t *testing.T) {
	cfg := npu.DefaultConfig()
	for _, tt := range reduceCases {
		t.Run(tt.name, func(t *testing.T) { checkLowered(t, cfg, tt.model(), tt.steps, tt.dims...) })
	}
}

// What the planar reductions cannot do is one error line naming the
// node, the field and its value, and what is supported.
func TestReduceErrors(t *testing.T) {
	base := func(opset int64) *onnxtest.Builder { return onnxtest.New(opset).Input("x", 1, 2, 4, 4).Output("y") }
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"ReduceSum over the channels", base(11).Node("sum", "ReduceSum", []string{"x"}, "y", oints("axes", 1, 2, 3)),
			`node "sum" (ReduceSum): axes [1 2 3] reduce the channel axis 1 (C = 2): the planar engine reduces within a channel; supported: axes 2 and 3 (the plane) or 2 (across rows)`},
		{"ReduceMean without axes: all", base(13).Node("mean", "ReduceMean", []string{"x"}, "y"),
			`node "mean" (ReduceMean): axes [0 1 2 3] reduce the channel axis 1 (C = 2)`},
		{"ReduceSum along W only", base(13).Int64("axes", []int64{1}, 3).Node("sum", "ReduceSum", []string{"x", "axes"}, "y"),
			`node "sum" (ReduceSum): axes [3] reduce W (axis 3) but not H (axis 2, H = 4): the planar engine reduces a channel's whole plane or across its rows; supported: axes 2 and 3, or 2`},
		{"ReduceSum noop_with_empty_axes", base(13).Int64("axes", []int64{0}).
			Node("sum", "ReduceSum", []string{"x", "axes"}, "y", i64("noop_with_empty_axes", 1)),
			`node "sum" (ReduceSum): axes [] of shape [1 2 4 4] reduce only axes of size 1 (or none): nothing to compute`},
		{"ReduceMean across rows wider than line_depth", onnxtest.New(11).Input("x", 1, 2, 2, 80).Output("y").
			Node("mean", "ReduceMean", []string{"x"}, "y", oints("axes", 2)),
			`node "mean" (ReduceMean): axes [2] of a plane 80 wide: a reduction across rows holds a row in the planar line buffer; supported: W ≤ line_depth = 64`},
		{"ReduceSum keepdims 2", base(11).Node("sum", "ReduceSum", []string{"x"}, "y", oints("axes", 2, 3), i64("keepdims", 2)),
			`keepdims 2: want 0 or 1`},
		{"Sqrt of a feature map", base(13).Node("abs", "Abs", []string{"x"}, "a").Node("sqrt", "Sqrt", []string{"a"}, "y"),
			`node "sqrt" (Sqrt): Sqrt of a [1 2 4 4] value: the planar engine has it only as the post function of a reduction; supported: right after a ReduceSum, ReduceMean or ReduceMax (fused), or of one value per channel`},
		{"Reciprocal of a Gemm result", base(13).Float("w", []int64{32, 3}, wave(0, 1, 32, 3)...).
			Node("flat", "Flatten", []string{"x"}, "f").Node("fc", "MatMul", []string{"f", "w"}, "m").
			Node("recip", "Reciprocal", []string{"m"}, "y"),
			`node "recip" (Reciprocal): Reciprocal of a [1 3] value: the planar engine has it only as the post function of a reduction`},
		{"Conv after a ReduceSum with Sqrt", base(11).Float("w", []int64{3, 2, 1, 1}, wave(0, 1, 3, 2, 1, 1)...).
			Node("abs", "Abs", []string{"x"}, "a").
			Node("sum", "ReduceSum", []string{"a"}, "s", oints("axes", 2, 3)).
			Node("sqrt", "Sqrt", []string{"s"}, "n").
			Node("cls", "Conv", []string{"n", "w"}, "y"),
			`node "sum" (ReduceSum): the reduction gives one value per channel (2) as a vector, which "cls" (Conv) cannot read; supported after it: Flatten, Reshape, Squeeze, Gemm, MatMul, Softmax, Sqrt, Reciprocal`},
		{"ReduceMax over the channels and rows", base(13).Node("max", "ReduceMax", []string{"x"}, "y", oints("axes", 1, 2)),
			`node "max" (ReduceMax): axes [1 2] reduce the channel axis 1 (C = 2): the planar engine reduces within a channel`},
		{"ReduceMax along W only, axes input (opset 18)", base(18).Int64("axes", []int64{1}, -1).Node("max", "ReduceMax", []string{"x", "axes"}, "y"),
			`node "max" (ReduceMax): axes [3] reduce W (axis 3) but not H (axis 2, H = 4)`},
		{"ReduceMax across rows wider than line_depth", onnxtest.New(13).Input("x", 1, 2, 2, 80).Output("y").
			Node("max", "ReduceMax", []string{"x"}, "y", oints("axes", 2)),
			`node "max" (ReduceMax): axes [2] of a plane 80 wide: a reduction across rows holds a row in the planar line buffer; supported: W ≤ line_depth = 64`},
		{"Conv after a ReduceMax of a 10x10 plane", onnxtest.New(13).Input("x", 1, 2, 10, 10).Output("y").
			Float("w", []int64{3, 2, 1, 1}, wave(0, 1, 3, 2, 1, 1)...).
			Node("max", "ReduceMax", []string{"x"}, "m", oints("axes", 2, 3)).
			Node("cls", "Conv", []string{"m", "w"}, "y"),
			`node "max" (ReduceMax): the reduction gives one value per channel (2) as a vector, which "cls" (Conv) cannot read; supported after it: Flatten, Reshape, Squeeze, Gemm, MatMul, Softmax, Sqrt, Reciprocal`},
		{"Conv after a GlobalMaxPool reduced to a vector", onnxtest.New(13).Input("x", 1, 2, 10, 10).Output("y").
			Float("w", []int64{3, 2, 1, 1}, wave(0, 1, 3, 2, 1, 1)...).
			Node("gmp", "GlobalMaxPool", []string{"x"}, "p").
			Node("cls", "Conv", []string{"p", "w"}, "y"),
			`node "gmp" (GlobalMaxPool): the plane 10x10 is wider than max_kernel = 8, so its maximum is taken per channel into a vector, which "cls" (Conv) cannot read; supported after it: Flatten, Reshape, Squeeze, Gemm, MatMul`},
		{"Max of one", base(13).Node("max", "Max", []string{"x"}, "y"),
			`node "max" (Max): 1 inputs, want 2`},
		{"Max with a constant of four elements", base(13).Float("k", []int64{4}, 0, 1, 2, 3).Node("max", "Max", []string{"x", "k"}, "y"),
			`node "max" (Max): input "k" is a constant of 4 elements: the Max of a computed value and a constant is supported for a single value (a bound), else of two computed values`},
		{"Max broadcast", base(13).Node("max1", "ReduceMax", []string{"x"}, "p", oints("axes", 2, 3)).
			Node("max", "Max", []string{"x", "p"}, "y"),
			`node "max" (Max): shapes [1 2 4 4] and [1 2 1 1]: only the Max of two values of one shape (no broadcasting) is supported`},
		{"Min of three", base(13).Node("abs", "Abs", []string{"x"}, "a").Node("min", "Min", []string{"x", "a", "x"}, "y"),
			`node "min" (Min): 3 inputs, want 2`},
		{"Min with a constant of four elements", base(13).Float("k", []int64{4}, 0, 1, 2, 3).Node("min", "Min", []string{"x", "k"}, "y"),
			`node "min" (Min): input "k" is a constant of 4 elements: the Min of a computed value and a constant is supported for a single value (a bound), else of two computed values`},
		{"Min broadcast", base(13).Node("gap", "GlobalAveragePool", []string{"x"}, "p").Node("min", "Min", []string{"x", "p"}, "y"),
			`node "min" (Min): shapes [1 2 4 4] and [1 2 1 1]: only the Min of two values of one shape (no broadcasting) is supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := tt.model.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			m, err := onnx.Load(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var dims []int64
			for _, d := range m.Graph.Inputs[0].Shape {
				dims = append(dims, d.Size)
			}
			_, err = Quantize(m, []*onnx.Array{input(0, dims...)}, npu.DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %v", err)
			}
		})
	}
}

// The sqrt and recip post functions with postRequant's scale and shift
// give, over every sum n int8 values can make, the exactly rounded
// √(sx·S/div)/sy or div/(sx·S)/sy (saturated to int8) but for a few
// sums, and never more than one step off.
func TestPostPrecision(t *testing.T) {
	cfg := npu.DefaultConfig()
	k := cfg.Planar().RecipShift()
	tests := []struct {
		post   golden.PostFn
		n, div int
		sx, sy float64
		lo, hi int64 // the sums tried
	}{
		{golden.PostSqrt, 16, 1, 0.01, 0.01, 0, 127 * 16},
		{golden.PostSqrt, 16, 16, 0.02, 0.001, 0, 127 * 16},
		{golden.PostSqrt, 100, 100, 0.05, 0.003, 0, 127 * 100},
		{golden.PostRecip, 16, 1, 0.01, 0.01, 1, 127 * 16},
		{golden.PostRecip, 16, 16, 0.008, 0.05, -127 * 16, 127 * 16},
		{golden.PostRecip, 1, 1, 0.01, 0.8, -128, 127},
	}
	for _, tt := range tests {
		l := &lowering{cfg: cfg, net: &Net{}}
		r, err := l.postRequant("post", tt.post, tt.sx, tt.sy, tt.div, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		q := r.Requant
		if tt.post == golden.PostRecip {
			q.Shift += k - r.RecipBits // as the compiler does (reduceRequant)
		}
		var differ, total int
		var worst int64
		for s := tt.lo; s <= tt.hi; s++ {
			if tt.post == golden.PostRecip && s == 0 {
				continue
			}
			got := q.ApplyPost(s, tt.post, k, golden.S(8))
			exact := math.Sqrt(tt.sx*float64(s)/float64(tt.div)) / tt.sy
			if tt.post == golden.PostRecip {
				exact = float64(tt.div) / (tt.sx * float64(s)) / tt.sy
			}
			want := int64(max(min(math.Floor(exact+0.5), 127), -128))
			if d := got - want; d != 0 {
				differ++
				worst = max(worst, d, -d)
			}
			total++
		}
		t.Logf("%v n %d div %d sx %g sy %g: scale %d, shift %d, recip_bits %d (engine shift %d); %d of %d sums differ from the exact rounding, by at most %d",
			tt.post, tt.n, tt.div, tt.sx, tt.sy, r.Requant.Scale, r.Requant.Shift, r.RecipBits, q.Shift, differ, total, worst)
		if worst > 1 {
			t.Errorf("%v n %d: a result is %d off the exact rounding", tt.post, tt.n, worst)
		}
	}
}
