package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// avgPoolModel is a 1×1×4×4 → 1×1×2×2 AveragePool (2×2, stride 2).
func avgPoolModel(t *testing.T) []byte {
	t.Helper()
	value := func(name string, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: shape}}}}
	}
	ints := func(name string, v ...int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
	}
	b, err := proto.Marshal(&onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{
			Name:   proto.String("avg"),
			Input:  []*onnxpb.ValueInfoProto{value("x", 1, 1, 4, 4)},
			Output: []*onnxpb.ValueInfoProto{value("y", 1, 1, 2, 2)},
			Node: []*onnxpb.NodeProto{{Name: proto.String("pool"), OpType: proto.String("AveragePool"), Input: []string{"x"}, Output: []string{"y"},
				Attribute: []*onnxpb.AttributeProto{ints("kernel_shape", 2, 2), ints("strides", 2, 2)}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A network needing a planar feature the NPU is configured without
// exits 2 with one line naming the feature and the field to set; with
// the feature it runs.
func TestRunMissingPlanarFeature(t *testing.T) {
	model := filepath.Join(t.TempDir(), "avg.onnx")
	if err := os.WriteFile(model, avgPoolModel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := capture(t, "run", "--model", model, "--engine", "interp", "--set", "planar_pool_avg=false")
	if code != exitUsage {
		t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
	}
	if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 {
		t.Errorf("%d lines on stderr, want 1:\n%s", lines, stderr)
	}
	for _, w := range []string{"pool0", "no average pooling (npu planar_pool_avg = false)", "set planar_pool_avg = true"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q: %s", w, stderr)
		}
	}
	if code, stdout, stderr := capture(t, "run", "--model", model, "--engine", "interp"); code != 0 || !strings.Contains(stdout, "PASS") {
		t.Errorf("with the feature: exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
}

// mnist-7 needs none of the optional planar features nor the table:
// the smallest NPU that runs it (4×4, one post unit, all left out)
// gives its int32 logits bit for bit on the Go simulator.
func TestRunMnistMinimalPlanar(t *testing.T) {
	code, stdout, stderr := capture(t, "run", "--model", mnistModel, "--engine", "go", "--set", "rows=4", "--set", "cols=4", "--set", "planar_lanes=1",
		"--set", "planar_lut=false", "--set", "planar_pool_avg=false", "--set", "planar_pool_min=false", "--set", "planar_eltwise=false",
		"--set", "planar_eltwise_mul=false", "--set", "planar_reduce=false", "--set", "planar_postfn=false")
	if code != 0 || !strings.Contains(stdout, "PASS: the NPU's int32") || !strings.Contains(stdout, "top-1 2") {
		t.Errorf("exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
}
