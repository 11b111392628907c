package onnx

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// randVals are n seeded normal values.
func randVals(seed uint64, n int) []float32 {
	return randomArray(seed, n).Data
}

// posVals are n seeded values in [0.5, 1.5): variances.
func posVals(seed uint64, n int) []float32 {
	rng := rand.New(rand.NewPCG(seed, 11))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(0.5 + rng.Float64())
	}
	return v
}

// bnParams adds BatchNormalization's scale, B, mean and var for c values.
func bnParams(b *onnxtest.Builder, dims ...int64) *onnxtest.Builder {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return b.Float("s", dims, randVals(1, n)...).Float("b", dims, randVals(2, n)...).
		Float("m", dims, randVals(3, n)...).Float("v", dims, posVals(4, n)...)
}

// opCase is one small model the float executor and ONNX Runtime both run.
type opCase struct {
	name  string
	model *onnxtest.Builder
}

var (
	ai   = onnxtest.Int
	af   = onnxtest.Float
	astr = onnxtest.String
	bn   = []string{"x", "s", "b", "m", "v"}
)

// opCases are the ops the float executor gained for the ImageNet
// networks and beyond, each in the forms and opsets that differ.
func opCases() []opCase {
	conv := func(opset int64, x []int64, w []int64, attrs ...any) *onnxtest.Builder {
		n := 1
		for _, d := range w {
			n *= int(d)
		}
		b := onnxtest.New(opset).Input("x", x...).Output("y").Float("w", w, randVals(5, n)...).
			Float("bias", []int64{w[0]}, randVals(6, int(w[0]))...)
		return b.Node("c", "Conv", []string{"x", "w", "bias"}, "y", attrList(attrs)...)
	}
	one := func(opset int64, op string, x []int64, attrs ...any) *onnxtest.Builder {
		return onnxtest.New(opset).Input("x", x...).Output("y").Node("n", op, []string{"x"}, "y", attrList(attrs)...)
	}
	return []opCase{
		{"BatchNormalization opset 9, batch 2", bnParams(onnxtest.New(9).Input("x", 2, 3, 4, 5).Output("y"), 3).
			Node("bn", "BatchNormalization", bn, "y")},
		{"BatchNormalization opset 15, epsilon", bnParams(onnxtest.New(15).Input("x", 1, 4, 3, 3).Output("y"), 4).
			Node("bn", "BatchNormalization", bn, "y", af("epsilon", 1e-2))},
		{"BatchNormalization opset 7, spatial 0", bnParams(onnxtest.New(7).Input("x", 2, 3, 2, 2).Output("y"), 3, 2, 2).
			Node("bn", "BatchNormalization", bn, "y", ai("spatial", 0))},
		{"BatchNormalization opset 15 training_mode with running statistics", bnParams(onnxtest.New(15).Input("x", 2, 3, 2, 2).Output("y").Output("rm").Output("rv"), 3).
			NodeN("bn", "BatchNormalization", bn, []string{"y", "rm", "rv"}, ai("training_mode", 1), af("momentum", 0.8))},
		{"BatchNormalization of [N,C]", bnParams(onnxtest.New(13).Input("x", 3, 4).Output("y"), 4).
			Node("bn", "BatchNormalization", bn, "y")},
		{"Concat axis 1 of two inputs", onnxtest.New(9).Input("x", 1, 2, 3, 3).Input("z", 1, 4, 3, 3).Output("y").
			Node("c", "Concat", []string{"x", "z"}, "y", ai("axis", 1))},
		{"Concat axis -1 of three, opset 13", onnxtest.New(13).Input("x", 2, 3).Input("z", 2, 1).Output("y").
			Node("c", "Concat", []string{"x", "z", "x"}, "y", ai("axis", -1))},
		{"Sum of three, broadcast", onnxtest.New(13).Input("x", 2, 3, 4).Input("z", 3, 1).Input("u", 4).Output("y").
			Node("s", "Sum", []string{"x", "z", "u"}, "y")},
		{"Sum of one", one(13, "Sum", []int64{2, 3})},
		{"Mul by [C,1,1]", onnxtest.New(13).Input("x", 2, 3, 4, 5).Output("y").Float("k", []int64{3, 1, 1}, randVals(7, 3)...).
			Node("m", "Mul", []string{"x", "k"}, "y")},
		{"Div by [W], opset 7", onnxtest.New(7).Input("x", 2, 3, 4).Output("y").Float("k", []int64{4}, posVals(8, 4)...).
			Node("d", "Div", []string{"x", "k"}, "y")},
		{"Sub of two inputs broadcast both ways", onnxtest.New(14).Input("x", 2, 1, 4).Input("z", 3, 1).Output("y").
			Node("s", "Sub", []string{"x", "z"}, "y")},
		{"Add scalar", onnxtest.New(13).Input("x", 5).Output("y").Float("k", []int64{}, 0.25).
			Node("a", "Add", []string{"k", "x"}, "y")},
		{"Softmax opset 11 axis 1: 2-D coercion", one(11, "Softmax", []int64{2, 3, 4}, "axis", 1)},
		{"Softmax opset 9 default axis", one(9, "Softmax", []int64{2, 3, 4})},
		{"Softmax opset 13 axis 1", one(13, "Softmax", []int64{2, 3, 4}, "axis", 1)},
		{"Softmax opset 13 default axis", one(13, "Softmax", []int64{2, 3, 4})},
		{"LRN size 5 (AlexNet's)", one(9, "LRN", []int64{1, 8, 4, 4}, "size", 5, "alpha", 1e-4, "beta", 0.75, "bias", 1.0)},
		{"LRN size 3, large alpha", one(13, "LRN", []int64{2, 5, 3, 3}, "size", 3, "alpha", 0.5, "beta", 0.6, "bias", 2.0)},
		{"Conv group 2", conv(9, []int64{1, 4, 6, 6}, []int64{6, 2, 3, 3}, "group", 2, "pads", []int64{1, 1, 1, 1})},
		{"Conv depthwise stride 2", conv(11, []int64{1, 4, 7, 7}, []int64{4, 1, 3, 3}, "group", 4, "strides", []int64{2, 2}, "pads", []int64{1, 1, 1, 1})},
		{"Conv depthwise multiplier 2", conv(11, []int64{1, 3, 5, 5}, []int64{6, 1, 3, 3}, "group", 3)},
		{"Conv dilations 2, asymmetric pads", conv(11, []int64{1, 2, 8, 7}, []int64{3, 2, 3, 2}, "dilations", []int64{2, 2}, "pads", []int64{0, 1, 2, 1})},
		{"Conv SAME_LOWER, stride 2, even kernel", conv(11, []int64{1, 2, 9, 8}, []int64{2, 2, 2, 4}, "strides", []int64{2, 2}, "auto_pad", "SAME_LOWER")},
		{"Conv 1-D", conv(11, []int64{2, 3, 10}, []int64{4, 3, 3}, "pads", []int64{1, 2}, "strides", []int64{2})},
		{"Conv batch 3, stride 3", conv(9, []int64{3, 2, 7, 8}, []int64{2, 2, 2, 2}, "strides", []int64{3, 3})},
		{"MaxPool dilations 2", one(12, "MaxPool", []int64{1, 2, 7, 7}, "kernel_shape", []int64{2, 2}, "dilations", []int64{2, 2})},
		{"MaxPool ceil_mode", one(12, "MaxPool", []int64{1, 2, 6, 6}, "kernel_shape", []int64{3, 3}, "strides", []int64{2, 2}, "ceil_mode", 1)},
		{"MaxPool ceil_mode, pads", one(12, "MaxPool", []int64{1, 1, 5, 5}, "kernel_shape", []int64{2, 2}, "strides", []int64{2, 2}, "pads", []int64{1, 1, 1, 1}, "ceil_mode", 1)},
		{"MaxPool 1-D", one(12, "MaxPool", []int64{2, 3, 9}, "kernel_shape", []int64{3}, "strides", []int64{2})},
		{"AveragePool ceil_mode, count_include_pad", one(12, "AveragePool", []int64{1, 2, 6, 6}, "kernel_shape", []int64{3, 3}, "strides", []int64{2, 2}, "pads", []int64{1, 1, 1, 1}, "ceil_mode", 1, "count_include_pad", 1)},
		{"AveragePool ceil_mode, pads excluded", one(12, "AveragePool", []int64{1, 2, 6, 6}, "kernel_shape", []int64{3, 3}, "strides", []int64{2, 2}, "pads", []int64{1, 1, 1, 1}, "ceil_mode", 1)},
		{"AveragePool 1-D", one(11, "AveragePool", []int64{1, 3, 8}, "kernel_shape", []int64{3}, "pads", []int64{1, 1})},
		{"AveragePool dilations (opset 19)", one(19, "AveragePool", []int64{1, 2, 8, 8}, "kernel_shape", []int64{2, 2}, "dilations", []int64{2, 2}, "pads", []int64{1, 1, 1, 1})},
		{"Pad constant value", onnxtest.New(13).Input("x", 1, 2, 3, 3).Output("y").Int64("p", []int64{8}, 0, 0, 1, 2, 0, 1, 2, 0).
			Float("c", []int64{}, 1.5).Node("p", "Pad", []string{"x", "p", "c"}, "y")},
		{"Pad reflect", onnxtest.New(13).Input("x", 1, 2, 4, 4).Output("y").Int64("p", []int64{8}, 0, 0, 2, 1, 0, 0, 1, 3).
			Node("p", "Pad", []string{"x", "p"}, "y", astr("mode", "reflect"))},
		{"Pad edge", onnxtest.New(13).Input("x", 2, 3, 3).Output("y").Int64("p", []int64{6}, 1, 0, 2, 0, 3, 1).
			Node("p", "Pad", []string{"x", "p"}, "y", astr("mode", "edge"))},
		{"Pad negative crops", onnxtest.New(13).Input("x", 1, 1, 5, 5).Output("y").Int64("p", []int64{8}, 0, 0, -1, 1, 0, 0, 2, -2).
			Node("p", "Pad", []string{"x", "p"}, "y")},
		{"Pad opset 7 attributes", one(7, "Pad", []int64{1, 2, 3}, "pads", []int64{0, 1, 2, 0, 0, 1}, "value", 0.5)},
		{"Pad opset 18 axes", onnxtest.New(18).Input("x", 2, 3, 4).Output("y").Int64("p", []int64{4}, 1, 2, 3, 0).Int64("a", []int64{2}, 2, 0).
			Node("p", "Pad", []string{"x", "p", "", "a"}, "y")},
		{"Sigmoid", one(13, "Sigmoid", []int64{2, 3, 4})},
		{"Tanh", one(13, "Tanh", []int64{2, 3, 4})},
		{"Exp", one(13, "Exp", []int64{2, 3, 4})},
		{"HardSigmoid", one(6, "HardSigmoid", []int64{2, 3, 4}, "alpha", 0.3, "beta", 0.4)},
		{"HardSigmoid defaults", one(13, "HardSigmoid", []int64{2, 3, 4})},
		{"HardSwish", one(14, "HardSwish", []int64{2, 3, 4})},
		{"Elu alpha", one(6, "Elu", []int64{2, 3, 4}, "alpha", 0.5)},
		{"LeakyRelu alpha", one(16, "LeakyRelu", []int64{2, 3, 4}, "alpha", 0.2)},
		{"PRelu per channel", onnxtest.New(9).Input("x", 2, 3, 2, 2).Output("y").Float("s", []int64{3, 1, 1}, 0.1, 0.2, 0.3).
			Node("p", "PRelu", []string{"x", "s"}, "y")},
		{"PRelu scalar slope", onnxtest.New(16).Input("x", 4, 5).Output("y").Float("s", []int64{1}, 0.25).
			Node("p", "PRelu", []string{"x", "s"}, "y")},
		{"Gemm [1,N] transB with C", onnxtest.New(9).Input("x", 1, 6).Output("y").Float("w", []int64{4, 6}, randVals(9, 24)...).
			Float("c", []int64{4}, randVals(10, 4)...).Node("g", "Gemm", []string{"x", "w", "c"}, "y", ai("transB", 1), af("alpha", 0.5))},
		{"Gemm batch 3, transA", onnxtest.New(13).Input("x", 5, 3).Output("y").Float("w", []int64{5, 2}, randVals(11, 10)...).
			Node("g", "Gemm", []string{"x", "w"}, "y", ai("transA", 1))},
		{"MatMul [N]·[N,M]", onnxtest.New(13).Input("x", 6).Output("y").Float("w", []int64{6, 3}, randVals(12, 18)...).
			Node("m", "MatMul", []string{"x", "w"}, "y")},
		{"MatMul [2,3,4]·[4,5]", onnxtest.New(13).Input("x", 2, 3, 4).Output("y").Float("w", []int64{4, 5}, randVals(13, 20)...).
			Node("m", "MatMul", []string{"x", "w"}, "y")},
		{"MatMul [M,K]·[K] and batched broadcast", onnxtest.New(13).Input("x", 2, 1, 3, 4).Input("z", 5, 4, 2).Output("y").
			Node("m", "MatMul", []string{"x", "z"}, "y")},
		{"Identity", one(13, "Identity", []int64{2, 3})},
		{"Dropout opset 7 with its mask", onnxtest.New(7).Input("x", 2, 3).Output("y").Output("mask").
			NodeN("d", "Dropout", []string{"x"}, []string{"y", "mask"}, af("ratio", 0.3))},
		{"Dropout opset 13 with ratio", onnxtest.New(13).Input("x", 2, 3).Output("y").Float("r", []int64{}, 0.5).
			Node("d", "Dropout", []string{"x", "r"}, "y")},
		{"ConstantOfShape into Add", onnxtest.New(9).Input("x", 2, 3).Output("y").Int64("shape", []int64{2}, 2, 3).
			Node("k", "ConstantOfShape", []string{"shape"}, "k", onnxtest.Tensor("value", onnxtest.FloatTensor("", []int64{1}, 0.75))).
			Node("a", "Add", []string{"x", "k"}, "y")},
	}
}

// attrList turns name, value pairs into attributes: int → INT, float64 →
// FLOAT, string → STRING, []int64 → INTS.
func attrList(kv []any) []*onnxpb.AttributeProto {
	var out []*onnxpb.AttributeProto
	for i := 0; i+1 < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case int:
			out = append(out, onnxtest.Int(name, int64(v)))
		case float64:
			out = append(out, onnxtest.Float(name, float32(v)))
		case string:
			out = append(out, onnxtest.String(name, v))
		case []int64:
			out = append(out, onnxtest.Ints(name, v...))
		}
	}
	return out
}

// Each op case agrees with ONNX Runtime on random inputs.
func TestORTFloatOps(t *testing.T) {
	var cases []sameCase
	for _, c := range append(opCases(), splitResizeCases()...) {
		cases = append(cases, sameCase{c.name, c.model, c.model})
	}
	checkCasesORT(t, cases)
}

// sameCase is a model for the float executor and the same computation
// for ONNX Runtime: the same graph, or its equivalent in an opset ONNX
// Runtime runs.
type sameCase struct {
	name      string
	exec, ort *onnxtest.Builder
}

// checkCasesORT runs each case on the float executor and, all in one
// process, on ONNX Runtime, with seeded random inputs of the model's
// input shapes, and compares.
func checkCasesORT(t *testing.T, cases []sameCase) {
	node := onnxtest.NeedORT(t)
	models := make([]*Model, len(cases))
	inputs := make([][]*Array, len(cases))
	jobs := make([]onnxtest.ORTJob, len(cases))
	for i, c := range cases {
		models[i], inputs[i] = caseModel(t, c.name, c.exec)
		data, err := c.ort.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		jobs[i] = onnxtest.ORTJob{Model: data, Runs: [][]onnxtest.NPY{npyOf(inputs[i])}}
	}
	res := onnxtest.RunORTBatch(t, node, jobs)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if res[i].Err != "" {
				t.Fatalf("ONNX Runtime: %s", res[i].Err)
			}
			got, err := models[i].Graph.Run(feedsOf(models[i], inputs[i]))
			if err != nil {
				t.Fatal(err)
			}
			e, err := compareOutputs(models[i], got, res[i].Runs[0])
			if err != nil {
				t.Fatal(err)
			}
			if e > ortTolerance {
				t.Errorf("largest difference from ONNX Runtime %.3g of the output range, want ≤ %g", e, ortTolerance)
			}
		})
	}
}

// caseModel loads a case's model, checks it, and makes seeded random
// inputs of its input shapes.
func caseModel(t *testing.T, name string, b *onnxtest.Builder) (*Model, []*Array) {
	t.Helper()
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(bytes.NewReader(data))
	if err == nil {
		err = m.Check(FloatOps)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var inputs []*Array
	for i, v := range m.Graph.Inputs {
		shape := make([]int, len(v.Shape))
		for j, d := range v.Shape {
			shape[j] = int(d.Size)
		}
		inputs = append(inputs, randomArray(uint64(100+i), shape...))
	}
	return m, inputs
}
