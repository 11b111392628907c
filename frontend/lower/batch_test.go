package lower

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// batchNet is a small CNN of batch n from a seed: Conv, Relu, MaxPool,
// Flatten, Gemm, the same weights for every n.
func batchNet(seed uint64, n int64) *onnxtest.Builder {
	r := newShapeRnd(seed)
	return onnxtest.New(13).Input("x", n, 2, 6, 6).Output("y").
		Float("w", []int64{4, 2, 3, 3}, r.vals(0.6, false, 4, 2, 3, 3)...).Float("b", []int64{4}, r.vals(0.1, false, 4)...).
		Node("conv", "Conv", []string{"x", "w", "b"}, "c", oints("pads", 1, 1, 1, 1)).
		Node("relu", "Relu", []string{"c"}, "r").
		Node("pool", "MaxPool", []string{"r"}, "p", oints("kernel_shape", 2, 2), oints("strides", 2, 2)).
		Node("flat", "Flatten", []string{"p"}, "f").
		Float("fc", []int64{5, 36}, r.vals(0.3, false, 5, 36)...).
		Node("gemm", "Gemm", []string{"f", "fc"}, "y", i64("transB", 1))
}

// A model of batch 3 lowers image by image, and runs through one program
// (compiler.Batch of one image's, each copy reading its image) as through
// each image's own: each image's int8 output equals, bit for bit, the batch-1 model's (the same weights) calibrated
// on the same three images one by one (the same ranges, so the same
// scales); the reference machine equals the golden models; the stacked
// outputs are the float executor's batch output within 3 output steps
// (the shapes tests' bound for more than one layer before the output).
func TestBatchImageByImage(t *testing.T) {
	cfg := npu.DefaultConfig()
	const n = 3
	for seed := uint64(1); seed <= 3; seed++ {
		batch, one := loadModel(t, batchNet(seed, n)), loadModel(t, batchNet(seed, 1))
		x := &onnx.Array{Shape: []int{n, 2, 6, 6}, Data: newShapeRnd(seed+10).vals(1, false, n, 2, 6, 6)}
		float, err := batch.Graph.Run(map[string]*onnx.Array{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		net, err := Quantize(batch, []*onnx.Array{x}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if net.Batch() != n {
			t.Fatalf("Batch() = %d, want %d", net.Batch(), n)
		}
		images, err := net.Images(map[string]*onnx.Array{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		var calib []*onnx.Array
		for _, im := range images {
			calib = append(calib, im["x"])
		}
		net1, err := Quantize(one, calib, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The batch through one program: image 0's, n copies (compiler.Batch),
		// each reading its own image.
		g0, err := net.GraphOf(images[0])
		if err != nil {
			t.Fatal(err)
		}
		p0, err := compiler.Compile(cfg, g0)
		if err != nil {
			t.Fatal(err)
		}
		bp, err := compiler.Batch(p0, n, "x")
		if err != nil {
			t.Fatal(err)
		}
		for k, im := range images {
			xq, err := net.QuantizeInputOf("x", im["x"])
			if err != nil {
				t.Fatal(err)
			}
			if err := bp.SetInput(compiler.BatchName("x", k), xq); err != nil {
				t.Fatal(err)
			}
		}
		batchOut, _, err := compiler.Interpret(bp)
		if err != nil {
			t.Fatal(err)
		}
		var outs []*onnx.Array
		for k, im := range images {
			g, err := net.GraphOf(im)
			if err != nil {
				t.Fatal(err)
			}
			p, err := compiler.Compile(cfg, g)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := compiler.Interpret(p)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := g.Reference(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(ref["y"], got["y"]); d != "" {
				t.Fatalf("image %d: reference machine vs golden models (-golden +machine):\n%s", k, d)
			}
			g1, err := net1.Graph(im["x"])
			if err != nil {
				t.Fatal(err)
			}
			ref1, err := g1.Reference(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(ref1["y"], got["y"]); d != "" {
				t.Errorf("seed %d, image %d: batch model vs batch-1 model (-batch 1 +batch %d):\n%s", seed, k, n, d)
			}
			if d := cmp.Diff(got["y"], batchOut[compiler.BatchName("y", k)]); d != "" {
				t.Errorf("seed %d, image %d: one batch program vs the image's own (-own +batch):\n%s", seed, k, d)
			}
			deq, err := net.Dequantize(got["y"])
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, deq)
		}
		y, err := net.Stack(outs)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(float["y"].Shape, y.Shape); d != "" {
			t.Fatalf("batch output shape (-float +stacked):\n%s", d)
		}
		var worst float64
		for i, v := range float["y"].Data {
			worst = max(worst, math.Abs(float64(y.Data[i]-v))/net.OutputScale())
		}
		if worst > 3 {
			t.Errorf("seed %d: max |int8 − float| = %.2f output steps, more than 3", seed, worst)
		}
	}
}

// A node working along the batch's axis, or a value without it, is one
// line naming what is supported.
func TestBatchErrors(t *testing.T) {
	base := func() *onnxtest.Builder { return onnxtest.New(13).Input("x", 2, 3, 4, 4).Output("y") }
	tests := []struct {
		name  string
		model *onnxtest.Builder
		want  string
	}{
		{"Concat on axis 0", base().Node("cat", "Concat", []string{"x", "x"}, "y", i64("axis", 0)),
			`batch 2: value "y" has shape [4 3 4 4]: supported`},
		{"Softmax on axis 0", onnxtest.New(13).Input("x", 2, 5).Output("y").Node("sm", "Softmax", []string{"x"}, "y", i64("axis", 0)),
			`node "sm" (Softmax): axis 0 of a [2 5] value with batch 2: supported: an axis other than the batch's`},
		{"Flatten on axis 0", base().Node("flat", "Flatten", []string{"x"}, "y", i64("axis", 0)),
			`batch 2: value "y" has shape [1 96]: supported: every value computed from the inputs of shape [N,...], each image on its own`},
		{"ReduceMax over axis 0", base().Node("max", "ReduceMax", []string{"x"}, "y", oints("axes", 0), i64("keepdims", 1)),
			`batch 2: value "y" has shape [1 3 4 4]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRefused(t, tt.model, tt.want) })
	}
}
