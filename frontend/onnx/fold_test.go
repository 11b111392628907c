package onnx

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// Fold leaves the nodes the table says and computes what the graph
// computed before.
func TestFold(t *testing.T) {
	value := onnxtest.Tensor("value", onnxtest.FloatTensor("", []int64{1}, 0.5))
	tests := []struct {
		name  string
		model *onnxtest.Builder
		ops   []string // the ops left, in order
	}{
		{"Identity and Dropout removed, a Dropout whose mask is read kept",
			onnxtest.New(13).Input("x", 2, 3).Output("y").Output("m").
				Node("i", "Identity", []string{"x"}, "a").Node("d", "Dropout", []string{"a"}, "b").
				NodeN("d2", "Dropout", []string{"b"}, []string{"c", "mask"}).
				Node("r", "Relu", []string{"c"}, "y").Node("mm", "Cast", []string{"mask"}, "m", onnxtest.Int("to", 1)),
			[]string{"Dropout", "Relu", "Cast"}},
		{"an Identity writing a graph output kept",
			onnxtest.New(13).Input("x", 2).Output("y").Node("i", "Identity", []string{"x"}, "y"),
			[]string{"Identity"}},
		{"Sum of three as two Adds, Sum of one removed",
			onnxtest.New(13).Input("x", 2).Input("z", 2).Output("y").
				Node("s1", "Sum", []string{"x"}, "a").Node("s3", "Sum", []string{"a", "z", "x"}, "y"),
			[]string{"Add", "Add"}},
		{"ConstantOfShape, Unsqueeze of it, then Mul: only the Mul left",
			onnxtest.New(11).Input("x", 1, 3, 2, 2).Output("y").Int64("shape", []int64{1}, 3).
				Node("k", "ConstantOfShape", []string{"shape"}, "k", value).
				Node("u", "Unsqueeze", []string{"k"}, "u", onnxtest.Ints("axes", 1, 2)).
				Node("m", "Mul", []string{"x", "u"}, "y"),
			[]string{"Mul"}},
		{"a shape computation folded into the Reshape's shape",
			onnxtest.New(13).Input("x", 2, 3, 4).Output("y").Int64("i", []int64{}, 0).Int64("minus", []int64{1}, -1).
				Node("s", "Shape", []string{"x"}, "s").Node("g", "Gather", []string{"s", "i"}, "g").
				Node("u", "Unsqueeze", []string{"g", "zero"}, "u").Int64("zero", []int64{1}, 0).
				Node("c", "Concat", []string{"u", "minus"}, "shape", onnxtest.Int("axis", 0)).
				Node("r", "Reshape", []string{"x", "shape"}, "y"),
			[]string{"Shape", "Gather", "Unsqueeze", "Concat", "Reshape"}}, // Shape reads x: not constant
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, after := load(t, tt.model), load(t, tt.model)
			if err := after.Fold(); err != nil {
				t.Fatal(err)
			}
			var ops []string
			for _, n := range after.Graph.Nodes {
				ops = append(ops, n.OpType)
			}
			if d := cmp.Diff(tt.ops, ops); d != "" {
				t.Errorf("ops left (-want +got):\n%s", d)
			}
			in := map[string]*Array{}
			for i, v := range before.Graph.Inputs {
				var shape []int
				for _, d := range v.Shape {
					shape = append(shape, int(d.Size))
				}
				in[v.Name] = randomArray(uint64(i), shape...)
			}
			want, err := before.Graph.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := after.Graph.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("outputs differ after folding (-before +after):\n%s", d)
			}
		})
	}
}

// Inference drops the pass-through nodes and splits the Sums of more than
// two inputs, computes what the graph computed, and leaves the graph it
// copies as it was.
func TestInference(t *testing.T) {
	m := load(t, onnxtest.New(13).Input("x", 2, 3).Input("z", 2, 3).Output("y").
		Node("i", "Identity", []string{"x"}, "a").Node("d", "Dropout", []string{"a"}, "b").
		Node("s1", "Sum", []string{"b"}, "c").Node("s2", "Sum", []string{"c", "z"}, "e").
		Node("s3", "Sum", []string{"e", "z", "c", "x"}, "y"))
	g := m.Graph.Inference()
	type node struct {
		Op     string
		Inputs []string
	}
	nodes := func(g *Graph) []node {
		var ns []node
		for _, n := range g.Nodes {
			ns = append(ns, node{n.OpType, n.Inputs})
		}
		return ns
	}
	want := []node{{"Sum", []string{"x", "z"}}, {"Add", []string{"e", "z"}}, {"Add", []string{"y/sum1", "x"}}, {"Add", []string{"y/sum2", "x"}}}
	if d := cmp.Diff(want, nodes(g)); d != "" {
		t.Errorf("Inference's nodes (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"Identity", "Dropout", "Sum", "Sum", "Sum"}, opTypes(&m.Graph)); d != "" {
		t.Errorf("the graph copied changed (-before +after):\n%s", d)
	}
	in := map[string]*Array{"x": randomArray(1, 2, 3), "z": randomArray(2, 2, 3)}
	before, err := m.Graph.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	after, err := g.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("outputs (-graph +Inference):\n%s", d)
	}
}

// opTypes are the ops of g's nodes, in order.
func opTypes(g *Graph) []string {
	var ops []string
	for _, n := range g.Nodes {
		ops = append(ops, n.OpType)
	}
	return ops
}

// RandomWeights fills each role with its distribution: He-scaled conv
// weights (std √(2/fan_in), fan_in of a grouped conv C/group·KH·KW),
// positive BatchNormalization variances, scales near 1, small biases; it
// leaves other FLOAT constants alone.
func TestRandomWeights(t *testing.T) {
	b := onnxtest.New(13).Input("x", 1, 8, 4, 4).Output("y").
		Float("w", []int64{64, 2, 3, 3}, make([]float32, 64*2*9)...).
		Float("bias", []int64{64}, make([]float32, 64)...).
		Float("s", []int64{64}, make([]float32, 64)...).Float("b", []int64{64}, make([]float32, 64)...).
		Float("m", []int64{64}, make([]float32, 64)...).Float("v", []int64{64}, make([]float32, 64)...).
		Float("k", []int64{64, 1, 1}, make([]float32, 64)...).
		Float("lo", []int64{}, 0.25).
		Node("c", "Conv", []string{"x", "w", "bias"}, "c", onnxtest.Int("group", 4), onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("bn", "BatchNormalization", []string{"c", "s", "b", "m", "v"}, "n").
		Node("m", "Mul", []string{"n", "k"}, "p").
		Node("cl", "Clip", []string{"p", "lo"}, "y")
	m := load(t, b)
	if err := RandomWeights(m, 3); err != nil {
		t.Fatal(err)
	}
	stats := func(name string) (lo, hi, std float64) {
		v := m.Graph.Initializer(name).Float32
		lo, hi = math.Inf(1), math.Inf(-1)
		var s float64
		for _, x := range v {
			lo, hi, s = min(lo, float64(x)), max(hi, float64(x)), s+float64(x)*float64(x)
		}
		return lo, hi, math.Sqrt(s / float64(len(v)))
	}
	if _, _, std := stats("w"); math.Abs(std-math.Sqrt(2.0/18)) > 0.03 {
		t.Errorf("conv weight std %.3f, want about √(2/18) = %.3f", std, math.Sqrt(2.0/18))
	}
	for _, c := range []struct {
		name   string
		lo, hi float64
	}{{"bias", -0.1, 0.1}, {"s", 0.8, 1.2}, {"b", -0.1, 0.1}, {"m", -0.1, 0.1}, {"v", 0.8, 1.2}, {"k", 0.8, 1.2}, {"lo", 0.25, 0.25}} {
		if lo, hi, _ := stats(c.name); lo < c.lo || hi > c.hi || c.lo != c.hi && hi-lo < (c.hi-c.lo)/2 {
			t.Errorf("%s in [%g, %g], want spread over [%g, %g]", c.name, lo, hi, c.lo, c.hi)
		}
	}
	again := load(t, b)
	if err := RandomWeights(again, 3); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Graph.Initializer("w").Float32, m.Graph.Initializer("w").Float32) {
		t.Error("seed 3 twice gave different weights")
	}
}

// Marshal writes back what Load read: mnist-7 and a model with every
// attribute kind round-trip.
func TestMarshalRoundTrip(t *testing.T) {
	attrs := onnxtest.New(9).Input("x", 1, 2).Output("y").Int64("shape", []int64{1}, 2).
		Node("k", "ConstantOfShape", []string{"shape"}, "k", onnxtest.Tensor("value", onnxtest.FloatTensor("", []int64{1}, 2))).
		Node("p", "Pad", []string{"x"}, "p", onnxtest.Ints("pads", 0, 1, 0, 1), onnxtest.String("mode", "edge"), onnxtest.Float("value", 0)).
		Node("u", "Upsample", []string{"p"}, "y", onnxtest.Floats("scales", 1, 2))
	data, err := attrs.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{loadMnist(t), mustLoad(t, data)} {
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back := mustLoad(t, b)
		if d := cmp.Diff(m, back, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("round trip (-read +written and read):\n%s", d)
		}
	}
}

func mustLoad(t *testing.T, data []byte) *Model {
	t.Helper()
	m, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
