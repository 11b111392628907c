package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
	"github.com/hwgen/hwgen/host"
)

// batchConvModel writes a conv net of input x [n,2,5,5] (Conv 3×3 with
// bias, Relu, MaxPool, GlobalAveragePool, Flatten, MatMul to 3 classes;
// weights of seed) into dir as name.
func batchConvModel(t *testing.T, dir, name string, n int64, seed float64) string {
	t.Helper()
	data, err := onnxtest.New(13).Input("x", n, 2, 5, 5).Output("y").
		Float("w", []int64{4, 2, 3, 3}, sine(seed, 0.5, 4*2*3*3)...).
		Float("bias", []int64{4}, sine(seed+1, 0.2, 4)...).
		Node("conv", "Conv", []string{"x", "w", "bias"}, "c", onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("relu", "Relu", []string{"c"}, "r").
		Node("pool", "MaxPool", []string{"r"}, "p", onnxtest.Ints("kernel_shape", 2, 2)).
		Node("gap", "GlobalAveragePool", []string{"p"}, "g").
		Node("flat", "Flatten", []string{"g"}, "f").
		Float("fc", []int64{4, 3}, sine(seed+2, 0.5, 4*3)...).
		Node("fcm", "MatMul", []string{"f", "fc"}, "y").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeArray writes x as a float32 .npy file in dir.
func writeArray(t *testing.T, dir, name string, x *onnx.Array) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := writeFloatNPY(path, x); err != nil {
		t.Fatal(err)
	}
	return path
}

// hwgen run on a model of batch 3 runs the three images through one
// program on the reference machine and on the Go simulator: PASS on
// each, the output joined to [3 3], and each image's int32 and
// dequantized output the same as a run of that image alone on the batch-1
// model of the same weights calibrated on the same three images. Two
// weight seeds.
func TestRunBatch(t *testing.T) {
	for _, seed := range []float64{3, 11} {
		for _, engine := range []string{"interp", "go"} {
			t.Run(fmt.Sprintf("seed %g/%s", seed, engine), func(t *testing.T) {
				dir := t.TempDir()
				batch := batchConvModel(t, dir, "batch.onnx", 3, seed)
				single := batchConvModel(t, dir, "single.onnx", 1, seed)
				x := onnx.NewArray(3, 2, 5, 5)
				copy(x.Data, sine(seed+5, 2, len(x.Data)))
				in := writeArray(t, dir, "x.npy", x)
				var images []string
				for k := range 3 {
					im := &onnx.Array{Shape: []int{1, 2, 5, 5}, Data: x.Data[k*50 : (k+1)*50]}
					images = append(images, writeArray(t, dir, fmt.Sprintf("x%d.npy", k), im))
				}
				out := filepath.Join(dir, "batch")
				code, stdout, stderr := capture(t, "run", "--model", batch, "--input", in, "--engine", engine, "--out", out)
				if code != exitOK {
					t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
				}
				wants := []string{"batch     3 images", "image 0   PASS", "image 2   PASS", "top-1 agrees on", "of 3 images",
					"result    PASS: on each of the 3 images", "joined [3 3]", "quality   over"}
				if engine == "go" {
					wants = append(wants, "cycles    ", "for the 3 images", "PE array  busy", "of the 3 runs")
				}
				for _, w := range wants {
					if !strings.Contains(stdout, w) {
						t.Errorf("output lacks %q:\n%s", w, stdout)
					}
				}
				raw, err := readNPY(filepath.Join(out, "logits_int32.npy"), compiler.Int32, nil)
				if err != nil {
					t.Fatal(err)
				}
				deq, err := readFloatNPY(filepath.Join(out, "logits.npy"), nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff([]int{3, 3}, deq.Shape); d != "" {
					t.Errorf("logits.npy shape (-want +got):\n%s", d)
				}
				for k, im := range images {
					alone := filepath.Join(dir, fmt.Sprintf("alone%d", k))
					code, stdout, stderr := capture(t, "run", "--model", single, "--input", im, "--calib", strings.Join(images, ","),
						"--engine", engine, "--out", alone)
					if code != exitOK {
						t.Fatalf("image %d alone: exit %d; stderr: %s\nstdout:\n%s", k, code, stderr, stdout)
					}
					r, err := readNPY(filepath.Join(alone, "logits_int32.npy"), compiler.Int32, nil)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(r.Data, raw.Data[k*3:(k+1)*3]); d != "" {
						t.Errorf("image %d: int32 output (-alone +in the batch):\n%s", k, d)
					}
					f, err := readFloatNPY(filepath.Join(alone, "logits.npy"), nil)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(f.Data, deq.Data[k*3:(k+1)*3]); d != "" {
						t.Errorf("image %d: dequantized output (-alone +in the batch):\n%s", k, d)
					}
				}
			})
		}
	}
}

// A batch model without --input runs on the test data set beside it or,
// without one, on a seeded random batch of the model's shape.
func TestRunBatchSources(t *testing.T) {
	dir := t.TempDir()
	model := batchConvModel(t, dir, "batch.onnx", 2, 5)
	code, stdout, stderr := capture(t, "run", "--model", model, "--engine", "interp")
	if code != exitOK {
		t.Fatalf("random: exit %d; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, w := range []string{"random, uniform in [0,1), [2 2 5 5], seed 1", "batch     2 images", "result    PASS: on each of the 2 images"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("random: output lacks %q:\n%s", w, stdout)
		}
	}
	set := filepath.Join(dir, "test_data_set_0")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := proto.Marshal(onnxtest.FloatTensor("x", []int64{2, 2, 5, 5}, sine(4, 1, 100)...))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(set, "input_0.pb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = capture(t, "run", "--model", model, "--engine", "interp")
	if code != exitOK {
		t.Fatalf("test data set: exit %d; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, w := range []string{"input_0.pb", "result    PASS: on each of the 2 images"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("test data set: output lacks %q:\n%s", w, stdout)
		}
	}
}

// A batch model refuses, in one line naming the input, the shape and the
// shape it needs, an input or calibration file of another shape, and
// --inputs and --data, which feed one image at a time.
func TestRunBatchRefusals(t *testing.T) {
	dir := t.TempDir()
	model := batchConvModel(t, dir, "batch.onnx", 3, 7)
	one := writeArray(t, dir, "one.npy", onnx.NewArray(1, 2, 5, 5))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one image", []string{"--input", one}, "--input " + one + ": shape [1 2 5 5]; the model's input x needs [3 2 5 5] (a batch of 3)"},
		{"calibration of one image", []string{"--calib", one}, "--calib " + one + ": shape [1 2 5 5]; the model's input x needs [3 2 5 5] (a batch of 3)"},
		{"inputs", []string{"--inputs", dir}, "--inputs: the model's input x is a batch of 3 ([3 2 5 5]); --inputs feeds models of one image"},
		{"data", []string{"--data", "mnist"}, "--data: the model's input x is a batch of 3 ([3 2 5 5]); --data feeds models of one image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := capture(t, append([]string{"run", "--model", model, "--engine", "go"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q: want one line containing %q", stderr, tc.want)
			}
		})
	}
}

// A model of two inputs of batch 2 (a [2,2,4,4], b [2,3]) runs on the Go
// simulator from a file for each: each image's two inputs written into
// the one program, PASS on each image, the output [2 3].
func TestRunBatchTwoInputs(t *testing.T) {
	dir := t.TempDir()
	data, err := onnxtest.New(13).Input("a", 2, 2, 4, 4).Input("b", 2, 3).Output("y").
		Float("w", []int64{3, 2, 3, 3}, sine(7, 0.5, 3*2*3*3)...).
		Node("conv", "Conv", []string{"a", "w"}, "c", onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("gap", "GlobalAveragePool", []string{"c"}, "g").
		Node("flat", "Flatten", []string{"g"}, "f").
		Node("sum", "Add", []string{"f", "b"}, "y").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "two.onnx")
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := onnx.NewArray(2, 2, 4, 4), onnx.NewArray(2, 3)
	copy(a.Data, sine(1, 1, len(a.Data)))
	copy(b.Data, sine(2, 0.5, len(b.Data)))
	args := []string{"run", "--model", model, "--engine", "go", "--input", "a=" + writeArray(t, dir, "a.npy", a), "--input", "b=" + writeArray(t, dir, "b.npy", b)}
	code, stdout, stderr := capture(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, w := range []string{"inputs a [2 2 4 4], b [2 3]", "image 1   PASS", "result    PASS: on each of the 2 images the NPU's int8 y [1 3]", "joined [2 3]"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
}

// A difference on one image of a batch fails the run (exit status 1)
// naming that image and the element, after the images before it passed,
// and is located layer by layer on that image.
func TestRunBatchFailsOnOneImage(t *testing.T) {
	defer func() { tamperNPU = nil }()
	dir := t.TempDir()
	model := batchConvModel(t, dir, "batch.onnx", 3, 9)
	runs := 0
	tamperNPU = func(res *host.Result, probe bool) {
		if probe {
			return
		}
		if runs++; runs == 2 {
			res.Outputs["y"].Data[1] += 5
		}
	}
	code, stdout, stderr := capture(t, "run", "--model", model, "--engine", "go")
	if code != exitFailure || !strings.Contains(stderr, "image 1: FAIL: y[0 1] = ") {
		t.Errorf("exit %d, want 1 with image 1's FAIL; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "image 0   PASS") || strings.Contains(stdout, "image 1   PASS") || !strings.Contains(stdout, "locate    layer by layer") {
		t.Errorf("stdout: want image 0's PASS, no image 1 PASS and the location:\n%s", stdout)
	}
}
