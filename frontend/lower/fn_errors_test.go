package lower

import (
	"strings"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// What the lowering of Softmax, LRN and PRelu cannot map is one error
// line naming the node, the op, the attribute or shape and what is
// supported.
func TestFunctionErrors(t *testing.T) {
	gemm := func(opset int64) *onnxtest.Builder {
		return onnxtest.New(opset).Input("x", 1, 2, 4, 4).Output("y").
			Float("w", []int64{32, 6}, wave(0, 0.5, 32, 6)...).
			Node("flat", "Flatten", []string{"x"}, "f").
			Node("gemm", "Gemm", []string{"f", "w"}, "g")
	}
	fmap := func() *onnxtest.Builder { return onnxtest.New(13).Input("x", 1, 3, 4, 4).Output("y") }
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"Softmax axis 0 from opset 13", gemm(13).Node("sm", "Softmax", []string{"g"}, "y", i64("axis", 0)),
			`node "sm" (Softmax): axis 0 of a [1 6] value (opset 13) normalizes 1 values at a time: the NPU normalizes all of them at once; supported: an axis that takes every value`},
		{"Softmax of a feature map", fmap().Node("sm", "Softmax", []string{"x"}, "y", i64("axis", 1)),
			`node "sm" (Softmax): axis 1 of a [1 3 4 4] value (opset 13) normalizes 3 values at a time`},
		{"Softmax of a feature map, opset 11", onnxtest.New(11).Input("x", 1, 3, 4, 4).Output("y").
			Node("sm", "Softmax", []string{"x"}, "y"),
			`node "sm" (Softmax): input "x" has shape [1 3 4 4]: supported: a [1,N] Gemm or MatMul result, or one value per channel ([1,C,1,1], [1,C])`},
		{"Softmax of a flattened feature map", fmap().Node("flat", "Flatten", []string{"x"}, "f").
			Node("sm", "Softmax", []string{"f"}, "y"),
			`node "sm" (Softmax): input "f" has shape [1 48]: supported: a [1,N] Gemm or MatMul result, or one value per channel`},
		{"Softmax read by another op", gemm(13).Node("sm", "Softmax", []string{"g"}, "s").Node("relu", "Relu", []string{"s"}, "y"),
			`node "sm" (Softmax): its output is read by "relu" (Relu): supported: a Softmax whose output is the graph's output`},
		{"LRN bias 0", fmap().Node("lrn", "LRN", []string{"x"}, "y", i64("size", 3), flt("bias", 0)),
			`node "lrn" (LRN): bias 0: supported: a positive finite bias`},
		{"PRelu by a computed slope", fmap().Node("gap", "GlobalAveragePool", []string{"x"}, "s").
			Node("prelu", "PRelu", []string{"x", "s"}, "y"),
			`node "prelu" (PRelu): slope: input "s" is not a FLOAT constant; supported: a constant slope`},
		{"PRelu slope per pixel", fmap().Float("s", []int64{4, 4}, wave(1, 0.5, 4, 4)...).
			Node("prelu", "PRelu", []string{"x", "s"}, "y"),
			`node "prelu" (PRelu): slope shape [4 4] of a [1 3 4 4] input: supported: one value, or one per channel ([C,1,1], [1,C,1,1]; C values before opset 7)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := loadModel(t, tt.model)
			var dims []int64
			for _, d := range m.Graph.Inputs[0].Shape {
				dims = append(dims, d.Size)
			}
			_, err := Quantize(m, []*onnx.Array{input(0, dims...)}, npu.DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %v", err)
			}
		})
	}
}
