package onnx

import (
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// splitResizeCases are the ops of several outputs or of computed shapes:
// Split and the nearest Resize and Upsample.
func splitResizeCases() []opCase {
	split := func(opset int64, x []int64, outs int, extra func(*onnxtest.Builder) []string, attrs ...any) *onnxtest.Builder {
		b := onnxtest.New(opset).Input("x", x...)
		var names []string
		for i := range outs {
			names = append(names, string(rune('a'+i)))
			b.Output(names[i])
		}
		in := []string{"x"}
		if extra != nil {
			in = append(in, extra(b)...)
		}
		return b.NodeN("s", "Split", in, names, attrList(attrs)...)
	}
	sizes := func(v ...int64) func(*onnxtest.Builder) []string {
		return func(b *onnxtest.Builder) []string {
			b.Int64("split", []int64{int64(len(v))}, v...)
			return []string{"split"}
		}
	}
	resize := func(opset int64, x []int64, scales []float32, sz []int64, attrs ...any) *onnxtest.Builder {
		b := onnxtest.New(opset).Input("x", x...).Output("y")
		in := []string{"x", "", "scales"}
		switch opset {
		case 10:
			in = []string{"x", "scales"}
		case 11: // roi is required there, even when unused
			b.Float("roi", []int64{0})
			in = []string{"x", "roi", "scales"}
		}
		if scales != nil {
			b.Float("scales", []int64{int64(len(scales))}, scales...)
		} else {
			b.Int64("sizes", []int64{int64(len(sz))}, sz...)
			in = []string{"x", "", "", "sizes"}
		}
		return b.Node("r", "Resize", in, "y", attrList(attrs)...)
	}
	return []opCase{
		{"Split equal parts, opset 13", split(13, []int64{2, 6, 3}, 3, nil, "axis", 1)},
		{"Split sizes input, opset 13", split(13, []int64{5, 2}, 2, sizes(1, 4))},
		{"Split sizes attribute, opset 11, axis -1", split(11, []int64{2, 7}, 3, nil, "axis", -1, "split", []int64{2, 2, 3})},
		{"Split num_outputs uneven, opset 18", split(18, []int64{7, 2}, 3, nil, "num_outputs", 3)},
		{"Resize ×2 half_pixel round_prefer_floor", resize(13, []int64{1, 2, 3, 4}, []float32{1, 1, 2, 2}, nil)},
		{"Resize ×1.5 asymmetric floor", resize(13, []int64{1, 1, 4, 4}, []float32{1, 1, 1.5, 1.5}, nil,
			"coordinate_transformation_mode", "asymmetric", "nearest_mode", "floor")},
		{"Resize align_corners round_prefer_ceil", resize(13, []int64{1, 1, 3, 5}, []float32{1, 1, 2.5, 0.6}, nil,
			"coordinate_transformation_mode", "align_corners", "nearest_mode", "round_prefer_ceil")},
		{"Resize to sizes, down and up, ceil", resize(13, []int64{1, 2, 6, 4}, nil, []int64{1, 2, 4, 7},
			"coordinate_transformation_mode", "pytorch_half_pixel", "nearest_mode", "ceil")},
		{"Resize tf_half_pixel_for_nn, opset 11", resize(11, []int64{1, 1, 4, 4}, []float32{1, 1, 0.5, 3}, nil,
			"coordinate_transformation_mode", "tf_half_pixel_for_nn")},
		{"Resize half_pixel_symmetric, opset 19", resize(19, []int64{1, 1, 5, 4}, []float32{1, 1, 1.7, 2.2}, nil,
			"coordinate_transformation_mode", "half_pixel_symmetric")},
		{"Resize opset 10 up", resize(10, []int64{1, 2, 3, 3}, []float32{1, 1, 2, 3}, nil)},
		{"Resize opset 10 down", resize(10, []int64{1, 1, 8, 6}, []float32{1, 1, 0.5, 0.7}, nil)},
		{"Upsample opset 9", onnxtest.New(9).Input("x", 1, 2, 3, 3).Output("y").Float("s", []int64{4}, 1, 1, 2, 2).
			Node("u", "Upsample", []string{"x", "s"}, "y")},
		{"Upsample opset 7 attribute", onnxtest.New(7).Input("x", 1, 2, 2, 3).Output("y").
			Node("u", "Upsample", []string{"x"}, "y", onnxtest.Floats("scales", 1, 1, 3, 2))},
	}
}

// The old attribute forms (broadcast and axis, is_test, spatial, Reshape's
// shape attribute, Concat's default axis, Pad's paddings, PRelu's
// per-channel slope) give what their opset-7-and-later equivalents give on
// ONNX Runtime.
func TestORTFloatLegacyOpsets(t *testing.T) {
	c := []float32{0.5, -1, 2}
	bnOld := bnParams(onnxtest.New(6).Input("x", 2, 3, 2, 2).Output("y"), 3)
	bnNow := bnParams(onnxtest.New(7).Input("x", 2, 3, 2, 2).Output("y"), 3)
	cases := []sameCase{ // the executor runs the first, in an opset before 7; ONNX Runtime the second
		{"Add broadcast axis 1",
			onnxtest.New(6).Input("x", 2, 3, 2, 2).Output("y").Float("k", []int64{3}, c...).
				Node("a", "Add", []string{"x", "k"}, "y", ai("broadcast", 1), ai("axis", 1)),
			onnxtest.New(7).Input("x", 2, 3, 2, 2).Output("y").Float("k", []int64{3, 1, 1}, c...).
				Node("a", "Add", []string{"x", "k"}, "y")},
		{"Mul broadcast trailing",
			onnxtest.New(1).Input("x", 2, 4, 3).Output("y").Float("k", []int64{3}, c...).
				Node("m", "Mul", []string{"x", "k"}, "y", ai("broadcast", 1)),
			onnxtest.New(7).Input("x", 2, 4, 3).Output("y").Float("k", []int64{3}, c...).
				Node("m", "Mul", []string{"x", "k"}, "y")},
		{"Sub broadcast of a one-element B",
			onnxtest.New(6).Input("x", 2, 3).Output("y").Float("k", []int64{1}, 0.5).
				Node("s", "Sub", []string{"x", "k"}, "y", ai("broadcast", 1)),
			onnxtest.New(7).Input("x", 2, 3).Output("y").Float("k", []int64{1}, 0.5).
				Node("s", "Sub", []string{"x", "k"}, "y")},
		{"BatchNormalization is_test 1, consumed_inputs",
			bnOld.Node("bn", "BatchNormalization", bn, "y", ai("is_test", 1), onnxtest.Ints("consumed_inputs", 0, 0, 0, 1, 1)),
			bnNow.Node("bn", "BatchNormalization", bn, "y")},
		{"Softmax opset 1",
			onnxtest.New(1).Input("x", 2, 3, 4).Output("y").Node("s", "Softmax", []string{"x"}, "y", ai("axis", 2)),
			onnxtest.New(7).Input("x", 2, 3, 4).Output("y").Node("s", "Softmax", []string{"x"}, "y", ai("axis", 2))},
		{"Reshape shape attribute",
			onnxtest.New(4).Input("x", 2, 3, 4).Output("y").Node("r", "Reshape", []string{"x"}, "y", onnxtest.Ints("shape", 0, -1)),
			onnxtest.New(7).Input("x", 2, 3, 4).Output("y").Int64("s", []int64{2}, 0, -1).Node("r", "Reshape", []string{"x", "s"}, "y")},
		{"Concat default axis 1",
			onnxtest.New(3).Input("x", 2, 3).Input("z", 2, 2).Output("y").Node("c", "Concat", []string{"x", "z"}, "y"),
			onnxtest.New(7).Input("x", 2, 3).Input("z", 2, 2).Output("y").Node("c", "Concat", []string{"x", "z"}, "y", ai("axis", 1))},
		{"Pad paddings, reflect",
			onnxtest.New(1).Input("x", 1, 2, 4).Output("y").Node("p", "Pad", []string{"x"}, "y",
				onnxtest.Ints("paddings", 0, 0, 2, 0, 0, 1), astr("mode", "reflect")),
			onnxtest.New(7).Input("x", 1, 2, 4).Output("y").Node("p", "Pad", []string{"x"}, "y",
				onnxtest.Ints("pads", 0, 0, 2, 0, 0, 1), astr("mode", "reflect"))},
		{"PRelu slope per channel",
			onnxtest.New(6).Input("x", 2, 3, 2, 2).Output("y").Float("s", []int64{3}, 0.1, 0.2, 0.3).Node("p", "PRelu", []string{"x", "s"}, "y"),
			onnxtest.New(7).Input("x", 2, 3, 2, 2).Output("y").Float("s", []int64{3, 1, 1}, 0.1, 0.2, 0.3).Node("p", "PRelu", []string{"x", "s"}, "y")},
		{"Gemm broadcast C",
			onnxtest.New(6).Input("x", 2, 3).Output("y").Float("w", []int64{3, 2}, randVals(1, 6)...).Float("c", []int64{2}, 1, -1).
				Node("g", "Gemm", []string{"x", "w", "c"}, "y", ai("broadcast", 1)),
			onnxtest.New(7).Input("x", 2, 3).Output("y").Float("w", []int64{3, 2}, randVals(1, 6)...).Float("c", []int64{2}, 1, -1).
				Node("g", "Gemm", []string{"x", "w", "c"}, "y")},
		{"Dropout is_test 1, Sum of equal shapes",
			onnxtest.New(6).Input("x", 2, 3).Input("z", 2, 3).Output("y").
				Node("d", "Dropout", []string{"x"}, "d", ai("is_test", 1)).Node("s", "Sum", []string{"d", "z"}, "y"),
			onnxtest.New(8).Input("x", 2, 3).Input("z", 2, 3).Output("y").
				Node("d", "Dropout", []string{"x"}, "d").Node("s", "Sum", []string{"d", "z"}, "y")},
	}
	checkCasesORT(t, cases)
}
