package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// opsModel writes a small net of the ops beyond mnist-7's, as PyTorch
// exports them (Conv, ReLU6 as Clip, GlobalAveragePool, x.view(x.size(0),
// -1), Gemm with transB, Transpose), and an input for it; avgPads adds an
// AveragePool hwgen cannot map (ceil_mode 1).
func opsModel(t *testing.T, dir string, avgPads bool) (model, input string) {
	t.Helper()
	wave := func(phase, scale float64, n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(scale * math.Sin(float64(3*i+1)+phase))
		}
		return v
	}
	x := "x"
	b := onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y")
	if avgPads {
		b.Node("avg", "AveragePool", []string{"x"}, "a", onnxtest.Ints("kernel_shape", 3, 3), onnxtest.Ints("pads", 1, 1, 1, 1),
			onnxtest.Int("ceil_mode", 1))
		x = "a"
	}
	b.Float("w", []int64{4, 2, 3, 3}, wave(1, 0.5, 72)...).Float("b", []int64{4}, wave(2, 0.2, 4)...).
		Float("zero", []int64{}, 0).Float("six", []int64{}, 6).
		Int64("i0", []int64{}, 0).Int64("ax", []int64{1}, 0).Int64("m1", []int64{1}, -1).
		Float("fc", []int64{3, 4}, wave(3, 1, 12)...).Float("fb", []int64{3}, wave(4, 0.3, 3)...).
		Node("conv", "Conv", []string{x, "w", "b"}, "c", onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("relu6", "Clip", []string{"c", "zero", "six"}, "r").
		Node("gap", "GlobalAveragePool", []string{"r"}, "p").
		Node("shape", "Shape", []string{"p"}, "s").
		Node("gather", "Gather", []string{"s", "i0"}, "n").
		Node("unsq", "Unsqueeze", []string{"n", "ax"}, "n1").
		Node("cat", "Concat", []string{"n1", "m1"}, "shp", onnxtest.Int("axis", 0)).
		Node("view", "Reshape", []string{"p", "shp"}, "f").
		Node("gemm", "Gemm", []string{"f", "fc", "fb"}, "g", onnxtest.Int("transB", 1)).
		Node("tr", "Transpose", []string{"g"}, "y")
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	model, input = filepath.Join(dir, "ops.onnx"), filepath.Join(dir, "x.npy")
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	in := onnx.NewArray(1, 2, 6, 6)
	copy(in.Data, wave(5, 1, len(in.Data)))
	if err := writeFloatNPY(input, in); err != nil {
		t.Fatal(err)
	}
	return model, input
}

// hwgen run takes a model of the newer ops: PASS on the Go simulator. An
// op setting it cannot map exits 2 with one line naming node and op.
func TestRunOps(t *testing.T) {
	model, input := opsModel(t, t.TempDir(), false)
	code, stdout, stderr := capture(t, "run", "--model", model, "--input", input)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"result    PASS", "layer     gap", "layer     gemm", "y [3 1]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	bad, input := opsModel(t, t.TempDir(), true)
	code, _, stderr = capture(t, "run", "--model", bad, "--input", input)
	if code != exitUsage {
		t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
	}
	want := `node "avg" (AveragePool): ceil_mode 1: only 0 is supported`
	if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stderr %q: want one line containing %q", stderr, want)
	}
}
