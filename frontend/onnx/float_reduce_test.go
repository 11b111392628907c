package onnx

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// The reductions, GlobalMaxPool, Sqrt, Reciprocal, Min and Max against
// values worked out by hand from the ONNX operator spec, axes as
// attribute (ReduceSum opset 11, ReduceMean and ReduceMax to 17) and as
// input (ReduceSum 13, ReduceMax 18).
func TestFloatReduceSpec(t *testing.T) {
	i, ints := onnxtest.Int, onnxtest.Ints
	x := seqArray(1, 2, 2, 3) // channel 0: 0..5, channel 1: 6..11
	tests := []struct {
		name  string
		model *onnxtest.Builder
		x     *Array
		want  *Array
	}{
		{"ReduceSum axes attribute [2 3] keepdims",
			onnxtest.New(11).Input("x", 1, 2, 2, 3).Output("y").
				Node("r", "ReduceSum", []string{"x"}, "y", ints("axes", 2, 3)),
			x, farr([]int{1, 2, 1, 1}, 15, 51)},
		{"ReduceSum axes input [-2] keepdims 0",
			onnxtest.New(13).Input("x", 1, 2, 2, 3).Output("y").Int64("axes", []int64{1}, -2).
				Node("r", "ReduceSum", []string{"x", "axes"}, "y", i("keepdims", 0)),
			x, farr([]int{1, 2, 3}, 3, 5, 7, 15, 17, 19)},
		{"ReduceSum no axes: all",
			onnxtest.New(13).Input("x", 1, 2, 2, 3).Output("y").
				Node("r", "ReduceSum", []string{"x"}, "y", i("keepdims", 0)),
			x, farr([]int{}, 66)},
		{"ReduceSum empty axes, noop_with_empty_axes 1",
			onnxtest.New(13).Input("x", 1, 2, 2, 3).Output("y").Int64("axes", []int64{0}).
				Node("r", "ReduceSum", []string{"x", "axes"}, "y", i("noop_with_empty_axes", 1)),
			x, x},
		{"ReduceMean axes attribute [3]",
			onnxtest.New(13).Input("x", 1, 2, 2, 3).Output("y").
				Node("r", "ReduceMean", []string{"x"}, "y", ints("axes", 3)),
			x, farr([]int{1, 2, 2, 1}, 1, 4, 7, 10)},
		{"ReduceMean axes attribute [1]",
			onnxtest.New(17).Input("x", 1, 2, 2, 3).Output("y").
				Node("r", "ReduceMean", []string{"x"}, "y", ints("axes", 1)),
			x, farr([]int{1, 1, 2, 3}, 3, 4, 5, 6, 7, 8)},
		{"ReduceMax axes attribute [2 3] keepdims",
			onnxtest.New(13).Input("x", 1, 2, 2, 3).Output("y").
				Node("r", "ReduceMax", []string{"x"}, "y", ints("axes", 2, 3)),
			x, farr([]int{1, 2, 1, 1}, 5, 11)},
		{"ReduceMax axes input [-2] (opset 18) keepdims 0",
			onnxtest.New(18).Input("x", 1, 2, 2, 3).Output("y").Int64("axes", []int64{1}, -2).
				Node("r", "ReduceMax", []string{"x", "axes"}, "y", i("keepdims", 0)),
			x, farr([]int{1, 2, 3}, 3, 4, 5, 9, 10, 11)},
		{"ReduceMax no axes: all",
			onnxtest.New(13).Input("x", 1, 2, 2, 3).Output("y").
				Node("r", "ReduceMax", []string{"x"}, "y", i("keepdims", 0)),
			x, farr([]int{}, 11)},
		{"ReduceMax empty axes (opset 18), noop_with_empty_axes 1",
			onnxtest.New(18).Input("x", 1, 2, 2, 3).Output("y").Int64("axes", []int64{0}).
				Node("r", "ReduceMax", []string{"x", "axes"}, "y", i("noop_with_empty_axes", 1)),
			x, x},
		{"ReduceMax axes attribute [1] of negative values",
			onnxtest.New(11).Input("x", 1, 2, 1, 2).Output("y").
				Node("r", "ReduceMax", []string{"x"}, "y", ints("axes", 1)),
			farr([]int{1, 2, 1, 2}, -3, -1, -2, -4), farr([]int{1, 1, 1, 2}, -2, -1)},
		{"GlobalMaxPool",
			onnxtest.New(13).Input("x", 1, 2, 2, 3).Output("y").Node("p", "GlobalMaxPool", []string{"x"}, "y"),
			x, farr([]int{1, 2, 1, 1}, 5, 11)},
		{"Sqrt",
			onnxtest.New(13).Input("x", 3).Output("y").Node("s", "Sqrt", []string{"x"}, "y"),
			farr([]int{3}, 0, 4, 2.25), farr([]int{3}, 0, 2, 1.5)},
		{"Reciprocal",
			onnxtest.New(13).Input("x", 3).Output("y").Node("r", "Reciprocal", []string{"x"}, "y"),
			farr([]int{3}, -4, 0.5, 2), farr([]int{3}, -0.25, 2, 0.5)},
		{"Min of two, broadcast",
			onnxtest.New(13).Input("x", 2, 2).Output("y").Float("b", []int64{2}, 1, -1).
				Node("m", "Min", []string{"x", "b"}, "y"),
			farr([]int{2, 2}, 0, 0, 3, -3), farr([]int{2, 2}, 0, -1, 1, -3)},
		{"Min of three",
			onnxtest.New(13).Input("x", 3).Output("y").Float("b", []int64{3}, 1, 5, 2).Float("c", []int64{3}, 3, 3, 3).
				Node("m", "Min", []string{"x", "b", "c"}, "y"),
			farr([]int{3}, 2, 4, 6), farr([]int{3}, 1, 3, 2)},
		{"Min of one",
			onnxtest.New(13).Input("x", 2).Output("y").Node("m", "Min", []string{"x"}, "y"),
			farr([]int{2}, 2, -4), farr([]int{2}, 2, -4)},
		{"Max of two, broadcast",
			onnxtest.New(13).Input("x", 2, 2).Output("y").Float("b", []int64{2}, 1, -1).
				Node("m", "Max", []string{"x", "b"}, "y"),
			farr([]int{2, 2}, 0, 0, 3, -3), farr([]int{2, 2}, 1, 0, 3, -1)},
		{"Max of three",
			onnxtest.New(13).Input("x", 3).Output("y").Float("b", []int64{3}, 1, 5, 2).Float("c", []int64{3}, 3, 3, 3).
				Node("m", "Max", []string{"x", "b", "c"}, "y"),
			farr([]int{3}, 2, 4, 6), farr([]int{3}, 3, 5, 6)},
		{"Max of one",
			onnxtest.New(13).Input("x", 2).Output("y").Node("m", "Max", []string{"x"}, "y"),
			farr([]int{2}, 2, -4), farr([]int{2}, 2, -4)},
	}
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

// Sqrt of a negative value is NaN and Reciprocal of 0 is +Inf, as in
// ONNX (calibration then refuses the value: it has no int8 scale).
func TestFloatSqrtReciprocalEdges(t *testing.T) {
	x := farr([]int{2}, -1, 0)
	s, err := evalSqrt(&Node{Inputs: []string{"x"}}, operands{n: &Node{Inputs: []string{"x"}}, env: map[string]*Array{"x": x}})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(s.Data[0])) || s.Data[1] != 0 {
		t.Errorf("Sqrt(-1, 0) = %v, want NaN, 0", s.Data)
	}
	r, err := evalReciprocal(&Node{Inputs: []string{"x"}}, operands{n: &Node{Inputs: []string{"x"}}, env: map[string]*Array{"x": x}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Data[0] != -1 || !math.IsInf(float64(r.Data[1]), 1) {
		t.Errorf("Reciprocal(-1, 0) = %v, want -1, +Inf", r.Data)
	}
}

// A NaN wins ReduceMax, GlobalMaxPool, Max and Min, wherever it stands,
// as in ONNX (numpy's maximum and minimum).
func TestFloatMaxNaN(t *testing.T) {
	nan := float32(math.NaN())
	run := func(model *onnxtest.Builder, x *Array) *Array {
		t.Helper()
		out, err := load(t, model).Graph.Run(map[string]*Array{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		return out["y"]
	}
	for _, x := range []*Array{farr([]int{1, 1, 1, 3}, nan, 1, 2), farr([]int{1, 1, 1, 3}, 1, nan, 0), farr([]int{1, 1, 1, 3}, 1, 2, nan)} {
		for _, m := range []*onnxtest.Builder{
			onnxtest.New(13).Input("x", 1, 1, 1, 3).Output("y").Node("r", "ReduceMax", []string{"x"}, "y", onnxtest.Ints("axes", 2, 3)),
			onnxtest.New(13).Input("x", 1, 1, 1, 3).Output("y").Node("p", "GlobalMaxPool", []string{"x"}, "y"),
		} {
			if y := run(m, x); len(y.Data) != 1 || !math.IsNaN(float64(y.Data[0])) {
				t.Errorf("max of %v = %v, want NaN", x.Data, y.Data)
			}
		}
	}
	for _, op := range []string{"Max", "Min"} {
		m := onnxtest.New(13).Input("x", 3).Output("y").Float("b", []int64{3}, nan, 1, nan).Node("m", op, []string{"x", "b"}, "y")
		y := run(m, farr([]int{3}, 0, nan, 5))
		for i, v := range y.Data {
			if !math.IsNaN(float64(v)) {
				t.Errorf("%s: element %d = %v, want NaN", op, i, v)
			}
		}
	}
}

// A reduction's bad axes or keepdims is one error naming the field and
// the value.
func TestFloatReduceErrors(t *testing.T) {
	i, ints := onnxtest.Int, onnxtest.Ints
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  []string
	}{
		{"axis out of range", onnxtest.New(11).Input("x", 1, 2).Output("y").
			Node("r", "ReduceSum", []string{"x"}, "y", ints("axes", 2)),
			[]string{`node "r" (ReduceSum)`, "axes [2]: axis 2 out of range for rank 2"}},
		{"axis twice", onnxtest.New(11).Input("x", 1, 2).Output("y").
			Node("r", "ReduceMean", []string{"x"}, "y", ints("axes", 1, -1)),
			[]string{`node "r" (ReduceMean)`, "axes [1 -1]: axis 1 is given twice"}},
		{"keepdims 2", onnxtest.New(11).Input("x", 1, 2).Output("y").
			Node("r", "ReduceSum", []string{"x"}, "y", i("keepdims", 2)),
			[]string{`node "r" (ReduceSum)`, "keepdims 2: want 0 or 1"}},
		{"ReduceMax axis out of range", onnxtest.New(13).Input("x", 1, 2).Output("y").
			Node("r", "ReduceMax", []string{"x"}, "y", ints("axes", -3)),
			[]string{`node "r" (ReduceMax)`, "axes [-3]: axis -3 out of range for rank 2"}},
		{"ReduceMax noop_with_empty_axes 2", onnxtest.New(18).Input("x", 1, 2).Output("y").
			Node("r", "ReduceMax", []string{"x"}, "y", i("noop_with_empty_axes", 2)),
			[]string{`node "r" (ReduceMax)`, "noop_with_empty_axes 2: want 0 or 1"}},
		{"GlobalMaxPool of a matrix", onnxtest.New(13).Input("x", 1, 2).Output("y").
			Node("p", "GlobalMaxPool", []string{"x"}, "y"),
			[]string{`node "p" (GlobalMaxPool)`, "shape [1 2]: want [N,C,D1,...] with at least one spatial dim"}},
		{"axes a FLOAT input", onnxtest.New(13).Input("x", 1, 2).Output("y").Float("a", []int64{1}, 1).
			Node("r", "ReduceSum", []string{"x", "a"}, "y"),
			[]string{`node "r" (ReduceSum)`, `input "a" is FLOAT; the op wants an integer tensor there`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, tt.model)
			_, err := m.Graph.Run(map[string]*Array{"x": NewArray(1, 2)})
			if err == nil {
				t.Fatal("no error")
			}
			checkMessage(t, err, tt.want)
		})
	}
}
