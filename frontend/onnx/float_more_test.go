package onnx

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// load serializes a test model and reads it back through Load, as a file
// would be.
func load(t *testing.T, b *onnxtest.Builder) *Model {
	t.Helper()
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func farr(shape []int, v ...float32) *Array { return &Array{Shape: shape, Data: v} }
func iarr(shape []int, v ...int64) *Array   { return &Array{Shape: shape, Ints: append([]int64{}, v...)} }

// seqArray is [0, 1, 2, ...] of the given shape.
func seqArray(shape ...int) *Array {
	a := NewArray(shape...)
	for i := range a.Data {
		a.Data[i] = float32(i)
	}
	return a
}

// maxInt64 is the "to the end" bound PyTorch exports in Slice ends.
const maxInt64 = math.MaxInt64

// The ops beyond mnist-7's, each in a small model loaded from its
// serialized form, against values worked out by hand from the ONNX
// operator spec.
func TestFloatOpsSpec(t *testing.T) {
	i := onnxtest.Int
	ints := onnxtest.Ints
	runSpecCases(t, []specCase{
		{"Gemm transB alpha beta C[N]",
			onnxtest.New(13).Input("x", 2, 3).Output("y").
				Float("b", []int64{2, 3}, 1, 0, 1, 0, 1, 0).Float("c", []int64{2}, 1, 2).
				Node("g", "Gemm", []string{"x", "b", "c"}, "y", i("transB", 1), onnxtest.Float("alpha", 2), onnxtest.Float("beta", 0.5)),
			farr([]int{2, 3}, 1, 2, 3, 4, 5, 6),
			// A·Bᵀ = [[4 2] [10 5]], ·2, + 0.5·[1 2]
			farr([]int{2, 2}, 8.5, 5, 20.5, 11)},
		{"Gemm scalar C, opset 7",
			onnxtest.New(7).Input("x", 1, 2).Output("y").
				Float("b", []int64{2, 2}, 1, 2, 3, 4).Float("c", []int64{}, 1).
				Node("g", "Gemm", []string{"x", "b", "c"}, "y"),
			farr([]int{1, 2}, 1, 2), farr([]int{1, 2}, 8, 11)},
		{"Gemm transA, C [M,1]",
			onnxtest.New(11).Input("x", 2, 2).Output("y").
				Float("b", []int64{2, 2}, 1, 0, 0, 1).Float("c", []int64{2, 1}, 10, 20).
				Node("g", "Gemm", []string{"x", "b", "c"}, "y", i("transA", 1)),
			// Aᵀ = [[1 3] [2 4]], times the identity, plus 10 on row 0 and 20 on row 1
			farr([]int{2, 2}, 1, 2, 3, 4), farr([]int{2, 2}, 11, 13, 22, 24)},
		{"Gemm without C (opset 11)",
			onnxtest.New(11).Input("x", 1, 2).Output("y").Float("b", []int64{2, 1}, 1, 1).
				Node("g", "Gemm", []string{"x", "b"}, "y"),
			farr([]int{1, 2}, 1, 2), farr([]int{1, 1}, 3)},
		{"Clip attributes (opset 10): ReLU6",
			onnxtest.New(10).Input("x", 4).Output("y").
				Node("c", "Clip", []string{"x"}, "y", onnxtest.Float("min", 0), onnxtest.Float("max", 6)),
			farr([]int{4}, -1, 3, 7.5, 6), farr([]int{4}, 0, 3, 6, 6)},
		{"Clip inputs (opset 11): min omitted",
			onnxtest.New(11).Input("x", 3).Output("y").Float("hi", []int64{}, 2).
				Node("c", "Clip", []string{"x", "", "hi"}, "y"),
			farr([]int{3}, -1, 3, 2), farr([]int{3}, -1, 2, 2)},
		{"Clip min above max gives max",
			onnxtest.New(13).Input("x", 2).Output("y").Float("lo", []int64{}, 5).Float("hi", []int64{}, 1).
				Node("c", "Clip", []string{"x", "lo", "hi"}, "y"),
			farr([]int{2}, -3, 9), farr([]int{2}, 1, 1)},
		{"Clip without bounds",
			onnxtest.New(13).Input("x", 2).Output("y").Node("c", "Clip", []string{"x"}, "y"),
			farr([]int{2}, -3, 9), farr([]int{2}, -3, 9)},
		{"AveragePool count_include_pad 0 (default)",
			onnxtest.New(13).Input("x", 1, 1, 2, 2).Output("y").
				Node("p", "AveragePool", []string{"x"}, "y", ints("kernel_shape", 2, 2), ints("pads", 1, 1, 1, 1)),
			farr([]int{1, 1, 2, 2}, 1, 2, 3, 4),
			// window sums 1 3 2 / 4 10 6 / 3 7 4 over 1 2 1 / 2 4 2 / 1 2 1 positions in the plane
			farr([]int{1, 1, 3, 3}, 1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4)},
		{"AveragePool count_include_pad 1",
			onnxtest.New(13).Input("x", 1, 1, 2, 2).Output("y").
				Node("p", "AveragePool", []string{"x"}, "y", ints("kernel_shape", 2, 2), ints("pads", 1, 1, 1, 1), i("count_include_pad", 1)),
			farr([]int{1, 1, 2, 2}, 1, 2, 3, 4),
			farr([]int{1, 1, 3, 3}, 0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1)},
		{"AveragePool stride 2",
			onnxtest.New(13).Input("x", 1, 1, 4, 4).Output("y").
				Node("p", "AveragePool", []string{"x"}, "y", ints("kernel_shape", 2, 2), ints("strides", 2, 2)),
			seqArray(1, 1, 4, 4), farr([]int{1, 1, 2, 2}, 2.5, 4.5, 10.5, 12.5)},
		{"GlobalAveragePool",
			onnxtest.New(13).Input("x", 1, 2, 2, 2).Output("y").Node("p", "GlobalAveragePool", []string{"x"}, "y"),
			seqArray(1, 2, 2, 2), farr([]int{1, 2, 1, 1}, 1.5, 5.5)},
		{"Transpose perm",
			onnxtest.New(13).Input("x", 1, 2, 3).Output("y").Node("t", "Transpose", []string{"x"}, "y", ints("perm", 0, 2, 1)),
			seqArray(1, 2, 3), farr([]int{1, 3, 2}, 0, 3, 1, 4, 2, 5)},
		{"Transpose default reverses",
			onnxtest.New(13).Input("x", 2, 1, 3).Output("y").Node("t", "Transpose", []string{"x"}, "y"),
			seqArray(2, 1, 3), farr([]int{3, 1, 2}, 0, 3, 1, 4, 2, 5)},
		// x.view(x.size(0), -1) as PyTorch exports it.
		{"view(size(0), -1), opset 13",
			onnxtest.New(13).Input("x", 2, 3, 2).Output("y").
				Int64("zero", []int64{}, 0).Int64("axes", []int64{1}, 0).
				Node("shape", "Shape", []string{"x"}, "s").
				Node("gather", "Gather", []string{"s", "zero"}, "n", i("axis", 0)).
				Node("unsq", "Unsqueeze", []string{"n", "axes"}, "n1").
				Node("minus1", "Constant", nil, "m1", onnxtest.Tensor("value", onnxtest.Int64Tensor("", []int64{1}, -1))).
				Node("concat", "Concat", []string{"n1", "m1"}, "shp", i("axis", 0)).
				Node("view", "Reshape", []string{"x", "shp"}, "y"),
			seqArray(2, 3, 2), &Array{Shape: []int{2, 6}, Data: seqArray(12).Data}},
		{"view(size(0), -1), opset 11: axes attribute, value_ints",
			onnxtest.New(11).Input("x", 2, 3, 2).Output("y").
				Node("shape", "Shape", []string{"x"}, "s").
				Node("zero", "Constant", nil, "z", onnxtest.Tensor("value", onnxtest.Int64Tensor("", []int64{}, 0))).
				Node("gather", "Gather", []string{"s", "z"}, "n").
				Node("unsq", "Unsqueeze", []string{"n"}, "n1", ints("axes", 0)).
				Node("minus1", "Constant", nil, "m1", ints("value_ints", -1)).
				Node("concat", "Concat", []string{"n1", "m1"}, "shp", i("axis", -1)).
				Node("view", "Reshape", []string{"x", "shp"}, "y"),
			seqArray(2, 3, 2), &Array{Shape: []int{2, 6}, Data: seqArray(12).Data}},
		{"Shape start end (opset 15)",
			onnxtest.New(15).Input("x", 2, 3, 4).Output("y").Node("s", "Shape", []string{"x"}, "y", i("start", -2), i("end", 100)),
			seqArray(2, 3, 4), iarr([]int{2}, 3, 4)},
		{"Slice of a shape to the end (INT64_MAX)",
			onnxtest.New(13).Input("x", 2, 3, 4).Output("y").
				Int64("st", []int64{1}, 1).Int64("en", []int64{1}, maxInt64).
				Node("s", "Shape", []string{"x"}, "s").
				Node("sl", "Slice", []string{"s", "st", "en"}, "y"),
			seqArray(2, 3, 4), iarr([]int{2}, 3, 4)},
		{"Slice axes and a negative step",
			onnxtest.New(13).Input("x", 2, 4).Output("y").
				Int64("st", []int64{2}, 0, -1).Int64("en", []int64{2}, 2, -4).Int64("ax", []int64{2}, 0, 1).Int64("sp", []int64{2}, 1, -1).
				Node("sl", "Slice", []string{"x", "st", "en", "ax", "sp"}, "y"),
			seqArray(2, 4), farr([]int{2, 3}, 3, 2, 1, 7, 6, 5)},
		{"Slice attributes (opset 9), end beyond the dim",
			onnxtest.New(9).Input("x", 2, 4).Output("y").
				Node("sl", "Slice", []string{"x"}, "y", ints("starts", 1), ints("ends", 1000), ints("axes", 1)),
			seqArray(2, 4), farr([]int{2, 3}, 1, 2, 3, 5, 6, 7)},
		{"Slice step 2 from a negative start",
			onnxtest.New(13).Input("x", 7).Output("y").
				Int64("st", []int64{1}, -6).Int64("en", []int64{1}, maxInt64).Int64("ax", []int64{1}, 0).Int64("sp", []int64{1}, 2).
				Node("sl", "Slice", []string{"x", "st", "en", "ax", "sp"}, "y"),
			seqArray(7), farr([]int{3}, 1, 3, 5)},
		{"Squeeze all ones (opset 11)",
			onnxtest.New(11).Input("x", 1, 3, 1, 2).Output("y").Node("s", "Squeeze", []string{"x"}, "y"),
			seqArray(1, 3, 1, 2), &Array{Shape: []int{3, 2}, Data: seqArray(6).Data}},
		{"Squeeze axes input (opset 13)",
			onnxtest.New(13).Input("x", 1, 3, 1, 2).Output("y").Int64("ax", []int64{1}, -2).
				Node("s", "Squeeze", []string{"x", "ax"}, "y"),
			seqArray(1, 3, 1, 2), &Array{Shape: []int{1, 3, 2}, Data: seqArray(6).Data}},
		{"Squeeze axes attribute (opset 11)",
			onnxtest.New(11).Input("x", 1, 3, 1, 2).Output("y").Node("s", "Squeeze", []string{"x"}, "y", ints("axes", 0)),
			seqArray(1, 3, 1, 2), &Array{Shape: []int{3, 1, 2}, Data: seqArray(6).Data}},
		{"Unsqueeze two axes",
			onnxtest.New(13).Input("x", 3).Output("y").Int64("ax", []int64{2}, 0, -1).
				Node("u", "Unsqueeze", []string{"x", "ax"}, "y"),
			seqArray(3), &Array{Shape: []int{1, 3, 1}, Data: seqArray(3).Data}},
		{"Concat along axis 1",
			onnxtest.New(13).Input("x", 2, 1).Output("y").Float("c", []int64{2, 2}, 10, 11, 12, 13).
				Node("c", "Concat", []string{"x", "c"}, "y", i("axis", 1)),
			farr([]int{2, 1}, 1, 2), farr([]int{2, 3}, 1, 10, 11, 2, 12, 13)},
		{"Gather columns, a negative index",
			onnxtest.New(13).Input("x", 2, 3).Output("y").Int64("idx", []int64{2}, -1, 0).
				Node("g", "Gather", []string{"x", "idx"}, "y", i("axis", 1)),
			seqArray(2, 3), farr([]int{2, 2}, 2, 0, 5, 3)},
		{"Cast FLOAT to INT64 truncates",
			onnxtest.New(13).Input("x", 3).Output("y").Node("c", "Cast", []string{"x"}, "y", i("to", int64(Int64))),
			farr([]int{3}, 1.7, -1.7, 3), iarr([]int{3}, 1, -1, 3)},
		{"Cast INT64 to FLOAT",
			onnxtest.New(13).Input("x", 3).Output("y").
				Node("s", "Shape", []string{"x"}, "s").Node("c", "Cast", []string{"s"}, "y", i("to", int64(Float32))),
			farr([]int{3}, 0, 0, 0), farr([]int{1}, 3)},
		{"Constant value_float",
			onnxtest.New(13).Input("x", 1).Output("y").
				Node("k", "Constant", nil, "k", onnxtest.Float("value_float", 2.5)).Node("a", "Add", []string{"x", "k"}, "y"),
			farr([]int{1}, 1), farr([]int{1}, 3.5)},
	})
}

// specCase is a small model and the value worked out by hand for its
// output y on input x.
type specCase struct {
	name  string
	model *onnxtest.Builder
	x     *Array
	want  *Array
}

// runSpecCases runs each case through Load and the float executor.
func runSpecCases(t *testing.T, tests []specCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, tt.model)
			if err := m.Check(FloatOps); err != nil {
				t.Fatal(err)
			}
			out, err := m.Graph.Run(map[string]*Array{"x": tt.x})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, out["y"]); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Forms of opsets before 7 that ONNX Runtime cannot judge, worked out by
// hand: BatchNormalization in training mode (is_test 0, its default
// before opset 7) and Cast-1's type name.
func TestFloatOldFormsSpec(t *testing.T) {
	runSpecCases(t, []specCase{
		{"BatchNormalization opset 6, is_test 0: the batch's statistics",
			onnxtest.New(6).Input("x", 2, 1, 1, 2).Output("y").
				Float("s", []int64{1}, 1).Float("b", []int64{1}, 0).Float("m", []int64{1}, 100).Float("v", []int64{1}, 100).
				// mean 2.5, variance 1.25; epsilon 2.75 makes the divisor 2
				Node("bn", "BatchNormalization", []string{"x", "s", "b", "m", "v"}, "y", onnxtest.Float("epsilon", 2.75)),
			farr([]int{2, 1, 1, 2}, 1, 2, 3, 4), farr([]int{2, 1, 1, 2}, -0.75, -0.25, 0.25, 0.75)},
		{"Cast opset 1: to by name",
			onnxtest.New(1).Input("x", 2).Output("y").Node("c", "Cast", []string{"x"}, "y", onnxtest.String("to", "INT32")),
			farr([]int{2}, 2.5, -3.5), iarr([]int{2}, 2, -3)},
	})
}

// The float executor's dispatch (floatOps) has an evaluator for every op
// OpTable marks Float and for no other.
func TestFloatOpsListed(t *testing.T) {
	var have []string
	for op := range floatOps {
		have = append(have, op)
	}
	for op := range floatMultiOps {
		have = append(have, op)
	}
	want := OpNames(func(o Op) bool { return o.Float })
	slices.Sort(have)
	slices.Sort(want)
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("OpTable's Float ops (-table +evaluated):\n%s", d)
	}
}

// An attribute value or element type the executor does not handle is one
// error line naming the node, the op and what is supported.
func TestFloatErrors(t *testing.T) {
	i := onnxtest.Int
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  []string
	}{
		{"Cast to DOUBLE", onnxtest.New(13).Input("x", 1).Output("y").Node("c", "Cast", []string{"x"}, "y", i("to", 11)),
			[]string{`node "c" (Cast)`, "to = DOUBLE not supported; supported: FLOAT, INT64, INT32, INT8, UINT8"}},
		{"AveragePool ceil_mode 2", onnxtest.New(13).Input("x", 1, 1, 3, 3).Output("y").
			Node("p", "AveragePool", []string{"x"}, "y", onnxtest.Ints("kernel_shape", 2, 2), i("ceil_mode", 2)),
			[]string{`node "p" (AveragePool)`, "ceil_mode 2: want 0 or 1"}},
		{"Gemm shapes", onnxtest.New(13).Input("x", 1, 3).Output("y").Float("b", []int64{2, 2}, 1, 2, 3, 4).
			Node("g", "Gemm", []string{"x", "b"}, "y"),
			[]string{`node "g" (Gemm)`, "inner sizes 3 and 2 differ"}},
		{"Slice step 0", onnxtest.New(13).Input("x", 3).Output("y").
			Int64("z", []int64{1}, 0).Int64("one", []int64{1}, 1).
			Node("s", "Slice", []string{"x", "z", "one", "z", "z"}, "y"),
			[]string{`node "s" (Slice)`, "step 0"}},
		{"Reshape allowzero", onnxtest.New(14).Input("x", 1, 3).Output("y").Int64("s", []int64{2}, 0, 3).
			Node("r", "Reshape", []string{"x", "s"}, "y", i("allowzero", 1)),
			[]string{`node "r" (Reshape)`, "only allowzero 0"}},
		{"Einsum", onnxtest.New(13).Input("x", 3).Output("y").Node("e", "Einsum", []string{"x"}, "y"),
			[]string{`node "e" (Einsum)`, "op not supported by the float executor; supported: Conv, Gemm"}},
		{"Pad wrap", onnxtest.New(19).Input("x", 3).Output("y").Int64("p", []int64{2}, 1, 1).
			Node("p", "Pad", []string{"x", "p"}, "y", onnxtest.String("mode", "wrap")),
			[]string{`node "p" (Pad)`, `mode "wrap" not supported; supported: constant, reflect, edge`}},
		{"Pad reflect wider than the axis", onnxtest.New(13).Input("x", 2).Output("y").Int64("p", []int64{2}, 2, 0).
			Node("p", "Pad", []string{"x", "p"}, "y", onnxtest.String("mode", "reflect")),
			[]string{`node "p" (Pad)`, "reflect pads must be smaller than the axis"}},
		{"Resize linear", onnxtest.New(13).Input("x", 1, 1, 2, 2).Output("y").Float("s", []int64{4}, 1, 1, 2, 2).
			Node("r", "Resize", []string{"x", "", "s"}, "y", onnxtest.String("mode", "linear")),
			[]string{`node "r" (Resize)`, `mode "linear" not supported; supported: nearest`}},
		{"Resize tf_crop_and_resize", onnxtest.New(13).Input("x", 1, 1, 2, 2).Output("y").Float("s", []int64{4}, 1, 1, 2, 2).
			Node("r", "Resize", []string{"x", "", "s"}, "y", onnxtest.String("coordinate_transformation_mode", "tf_crop_and_resize")),
			[]string{`node "r" (Resize)`, `coordinate_transformation_mode "tf_crop_and_resize" not supported`}},
		{"Dropout training", onnxtest.New(13).Input("x", 2).Output("y").Float("r", []int64{}, 0.5).
			Int64("t", []int64{}, 1).Node("d", "Dropout", []string{"x", "r", "t"}, "y"),
			[]string{`node "d" (Dropout)`, "training_mode true: random dropout not supported"}},
		{"BatchNormalization training, spatial 0", onnxtest.New(6).Input("x", 1, 2, 1, 1).Output("y").
			Float("s", []int64{2, 1, 1}, 1, 1).Float("b", []int64{2, 1, 1}, 0, 0).Float("m", []int64{2, 1, 1}, 0, 0).Float("v", []int64{2, 1, 1}, 1, 1).
			Node("bn", "BatchNormalization", []string{"x", "s", "b", "m", "v"}, "y", i("spatial", 0)),
			[]string{`node "bn" (BatchNormalization)`, "spatial 0 in training mode", "supported: spatial 1, or inference"}},
		{"BatchNormalization statistics outputs before opset 14", onnxtest.New(9).Input("x", 1, 1, 2, 2).Output("y").
			Float("s", []int64{1}, 1).Float("b", []int64{1}, 0).Float("m", []int64{1}, 0).Float("v", []int64{1}, 1).
			NodeN("bn", "BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"y", "mean", "var", "sm", "sv"}),
			[]string{`node "bn" (BatchNormalization)`, "5 outputs: the statistics outputs of opset 9 not supported", "from opset 14 in training mode the running mean and var"}},
		{"LRN without size", onnxtest.New(13).Input("x", 1, 2, 2, 2).Output("y").Node("l", "LRN", []string{"x"}, "y"),
			[]string{`node "l" (LRN)`, "size 0: want a positive size"}},
		{"Conv group not dividing the channels", onnxtest.New(13).Input("x", 1, 3, 3, 3).Output("y").
			Float("w", []int64{2, 1, 1, 1}, 1, 1).Node("c", "Conv", []string{"x", "w"}, "y", i("group", 2)),
			[]string{`node "c" (Conv)`, "group 2, input channels 3, weights [2 1 1 1]"}},
		{"MaxPool 3-D", onnxtest.New(13).Input("x", 1, 1, 2, 2, 2).Output("y").
			Node("p", "MaxPool", []string{"x"}, "y", onnxtest.Ints("kernel_shape", 1, 1, 1)),
			[]string{`node "p" (MaxPool)`, "3-D and higher are not supported"}},
		{"Split sizes not adding up", onnxtest.New(11).Input("x", 5).Output("a").Output("b").
			NodeN("s", "Split", []string{"x"}, []string{"a", "b"}, onnxtest.Ints("split", 2, 2)),
			[]string{`node "s" (Split)`, "split [2 2] into 2 outputs", "adding up to axis 0's 5"}},
		{"Add broadcast 0 before opset 7", onnxtest.New(6).Input("x", 2, 3).Output("y").Float("k", []int64{3}, 1, 2, 3).
			Node("a", "Add", []string{"x", "k"}, "y"),
			[]string{`node "a" (Add)`, "shapes [2 3] and [3] differ and broadcast is 0"}},
		{"Add broadcast axis that does not fit", onnxtest.New(6).Input("x", 2, 3).Output("y").Float("k", []int64{3}, 1, 2, 3).
			Node("a", "Add", []string{"x", "k"}, "y", i("broadcast", 1), i("axis", 0)),
			[]string{`node "a" (Add)`, "broadcast axis 0: B's shape [3] does not match A's [2 3]"}},
		{"ConstantOfShape too large", onnxtest.New(9).Input("x", 1).Output("y").Int64("s", []int64{2}, 1<<20, 1<<20).
			Node("k", "ConstantOfShape", []string{"s"}, "y"),
			[]string{`node "k" (ConstantOfShape)`, "at most 2147483648 elements"}},
		{"Add of a shape", onnxtest.New(13).Input("x", 3).Output("y").
			Node("s", "Shape", []string{"x"}, "s").Node("a", "Add", []string{"x", "s"}, "y"),
			[]string{`node "a" (Add)`, `input "s" is an integer tensor; the op takes FLOAT`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, tt.model)
			var shape []int
			for _, d := range m.Graph.Inputs[0].Shape {
				shape = append(shape, int(d.Size))
			}
			x := NewArray(shape...)
			_, err := m.Graph.Run(map[string]*Array{"x": x})
			if err == nil {
				t.Fatal("no error")
			}
			checkMessage(t, err, tt.want)
		})
	}
}
