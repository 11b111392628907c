package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// sine is n values scale·sin(3i + 1 + phase).
func sine(phase, scale float64, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(scale * math.Sin(float64(3*i+1)+phase))
	}
	return v
}

// twoInputModel writes a model of a map input "a" [1,2,4,4] and a vector
// input "b" [3] (a Conv's pooled features plus b), and an .npy file for
// each, into dir.
func twoInputModel(t *testing.T, dir string) (model, a, b string) {
	t.Helper()
	data, err := onnxtest.New(13).Input("a", 1, 2, 4, 4).Input("b", 3).Output("y").
		Float("w", []int64{3, 2, 3, 3}, sine(7, 0.5, 3*2*3*3)...).
		Node("conv", "Conv", []string{"a", "w"}, "c", onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("gap", "GlobalAveragePool", []string{"c"}, "g").
		Node("flat", "Flatten", []string{"g"}, "f").
		Node("sum", "Add", []string{"f", "b"}, "y").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	model, a, b = filepath.Join(dir, "two.onnx"), filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		x    *onnx.Array
	}{{a, onnx.NewArray(1, 2, 4, 4)}, {b, onnx.NewArray(3)}} {
		copy(f.x.Data, sine(8, 2, len(f.x.Data)))
		if err := writeFloatNPY(f.path, f.x); err != nil {
			t.Fatal(err)
		}
	}
	return model, a, b
}

// hwgen run feeds a model of two inputs a file for each (--input
// NAME=FILE, repeated) or, with none, seeded random values for each:
// PASS either way; a plain --input FILE or a missing input is one usage
// line.
func TestRunTwoInputs(t *testing.T) {
	model, a, b := twoInputModel(t, t.TempDir())
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"files", []string{"--input", "a=" + a, "--input", "b=" + b}, []string{"inputs a [1 2 4 4], b [3]", "input     a ", "b.npy", "result    PASS"}},
		{"random", nil, []string{"input     random, uniform in [0,1), seed 1", "calibrate on 4 random input sets", "result    PASS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := capture(t, append([]string{"run", "--model", model, "--engine", "interp"}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
	// The test data set beside the model: input_k.pb for input k.
	set := filepath.Join(filepath.Dir(model), "test_data_set_0")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, x := range []*onnxpb.TensorProto{onnxtest.FloatTensor("a", []int64{1, 2, 4, 4}, sine(9, 1, 32)...), onnxtest.FloatTensor("b", []int64{3}, sine(10, 1, 3)...)} {
		data, err := proto.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(set, fmt.Sprintf("input_%d.pb", k)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := capture(t, "run", "--model", model, "--engine", "interp")
	if code != exitOK {
		t.Fatalf("test data set: exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, w := range []string{"input_0.pb", "input_1.pb", "result    PASS"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("test data set: output lacks %q:\n%s", w, stdout)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"plain file", []string{"--input", a}, "the model has inputs a, b: give NAME=FILE for each"},
		{"one missing", []string{"--input", "a=" + a}, "--input: no file for input b; give NAME=FILE for each of a, b"},
		{"wrong shape", []string{"--input", "a=" + b, "--input", "b=" + b}, "shape [3]; the model's input a needs [1 2 4 4]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := capture(t, append([]string{"run", "--model", model, "--engine", "interp"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q: want one line containing %q", stderr, tc.want)
			}
		})
	}
}
