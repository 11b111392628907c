package conformance

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// TestFloatExecutorNodeTests: the float executor gives the official node
// tests' expected outputs, to 1e-4 of each output's range, for every test
// of one node of an op onnx.OpTable marks Float whose inputs it takes
// (FLOAT data). These include the tests of opsets below 7 (Elu,
// HardSigmoid, the global pools, ...), which ONNX Runtime does not run. A
// test the executor refuses (an attribute value or output it does not
// support) must be one of floatRefusals, so that a new refusal or a new
// pass is noticed; a wrong number always fails.
func TestFloatExecutorNodeTests(t *testing.T) {
	needData(t)
	entries, err := os.ReadDir(DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	ran := 0
	for _, e := range entries {
		c, err := Load(filepath.Join(DefaultDir, e.Name()))
		if err != nil || len(c.Model.Graph.Nodes) != 1 || !slices.Contains(onnx.FloatOps, c.Op) {
			continue
		}
		in, ok := floatInputs(c)
		if !ok {
			continue
		}
		ran++
		out, err := c.Model.Graph.Run(in)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: refusal is not one line: %v", c.Name, err)
			}
			refused = append(refused, c.Name)
			t.Logf("%s: refused: %v", c.Name, err)
			continue
		}
		for i, v := range c.Model.Graph.Outputs {
			checkNodeOutput(t, c.Name, v.Name, out[v.Name], c.Outputs[i])
		}
	}
	if d := diffNames(floatRefusals, refused); d != "" {
		t.Errorf("refusals differ from floatRefusals: %s", d)
	}
	if ran < 250 {
		t.Errorf("ran %d node tests, want at least 250", ran)
	}
	t.Logf("%d node tests, %d refused", ran, len(refused))
}

// checkNodeOutput compares one output with the expected tensor.
func checkNodeOutput(t *testing.T, test, name string, got *onnx.Array, want *onnx.Tensor) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: output %q not computed", test, name)
		return
	}
	if want.DType != onnx.Float32 {
		return // a mask or an index: the executor holds it as integers
	}
	w, err := onnx.ArrayOf(want)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Shape, w.Shape) {
		t.Errorf("%s: output %q has shape %v, want %v", test, name, got.Shape, w.Shape)
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range w.Data {
		lo, hi = min(lo, float64(v)), max(hi, float64(v))
	}
	tol := 1e-4 * max(hi-lo, math.Abs(hi), math.Abs(lo), 1e-6)
	for i, v := range w.Data {
		g := float64(got.Data[i])
		if math.IsNaN(float64(v)) != math.IsNaN(g) || math.Abs(g-float64(v)) > tol {
			t.Errorf("%s: output %q element %d = %g, want %g", test, name, i, g, v)
			return
		}
	}
}

// diffNames says which names are only in want and which only in got.
func diffNames(want, got []string) string {
	var only []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			only = append(only, "not refused now: "+w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			only = append(only, "refused now: "+g)
		}
	}
	return strings.Join(only, "; ")
}

// floatRefusals are the node tests of float ops whose attribute values or
// outputs the float executor refuses, each with a one-line error.
var floatRefusals = []string{
	"test_averagepool_3d_default", "test_maxpool_3d_default", // 3-D windows
	// MaxPool's Indices output
	"test_maxpool_with_argmax_2d_precomputed_pads", "test_maxpool_with_argmax_2d_precomputed_strides",
	"test_cast_FLOAT_to_DOUBLE", "test_reshape_allowzero_reordered",
	// Resize: nearest only
	"test_resize_downsample_scales_cubic", "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
	"test_resize_downsample_scales_cubic_align_corners", "test_resize_downsample_scales_linear",
	"test_resize_downsample_scales_linear_align_corners", "test_resize_downsample_sizes_cubic",
	"test_resize_downsample_sizes_linear_pytorch_half_pixel", "test_resize_tf_crop_and_resize",
	"test_resize_upsample_scales_cubic", "test_resize_upsample_scales_cubic_A_n0p5_exclude_outside",
	"test_resize_upsample_scales_cubic_align_corners", "test_resize_upsample_scales_cubic_asymmetric",
	"test_resize_upsample_scales_linear", "test_resize_upsample_scales_linear_align_corners",
	"test_resize_upsample_sizes_cubic",
}
