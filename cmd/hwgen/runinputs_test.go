package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// inputsDir writes the model's test digit and two shifted copies as
// a.npy, b.npy, c.npy, and with nan also d.npy holding a NaN.
func inputsDir(t *testing.T, nan bool) string {
	t.Helper()
	tt, err := onnx.LoadTensorFile(filepath.Join(filepath.Dir(mnistModel), "test_data_set_0", "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := onnx.ArrayOf(tt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, name := range []string{"a.npy", "b.npy", "c.npy", "d.npy"} {
		if i == 3 && !nan {
			break
		}
		y := onnx.NewArray(x.Shape...)
		copy(y.Data[i:], x.Data) // moved right by i pixels (wrapping into the next row)
		if i == 3 {
			y.Data[5] = float32(math.NaN())
		}
		if err := writeFloatNPY(filepath.Join(dir, name), y); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRunInputs: a folder of .npy inputs through the pipeline writes one
// logits file per input; a NaN input fails its batch only, and the
// others' logits are still written.
func TestRunInputs(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := capture(t, "run", "--model", mnistModel, "--inputs", inputsDir(t, false), "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"inputs    3 .npy files", "calibrate on the first 3 of the inputs", "top-1     a.npy: class 2", "results   3 logits files", "result    PASS"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var got []string
	for _, name := range []string{"a.npy", "b.npy", "c.npy"} {
		y, err := readFloatNPY(filepath.Join(out, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(name, y.Shape))
	}
	if d := cmp.Diff([]string{"a.npy[1 10]", "b.npy[1 10]", "c.npy[1 10]"}, got); d != "" {
		t.Errorf("logits files (-want +got):\n%s", d)
	}

	out = t.TempDir()
	code, stdout, stderr = capture(t, "run", "--model", mnistModel, "--inputs", inputsDir(t, true), "--batch", "2", "--out", out)
	if code != exitFailure {
		t.Fatalf("exit %d, want %d; stderr: %s\nstdout:\n%s", code, exitFailure, stderr, stdout)
	}
	if !strings.Contains(stderr, "d.npy") || !strings.Contains(stderr, "NaN") || !strings.Contains(stderr, "2 of 4 images failed") {
		t.Errorf("stderr does not name the NaN input and its batch:\n%s", stderr)
	}
	files, _ := os.ReadDir(out)
	if len(files) != 2 {
		t.Errorf("%d logits files, want the 2 of the batch without the NaN", len(files))
	}
}
