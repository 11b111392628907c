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
	"github.com/hwgen/hwgen/golden"
)

// hwgen quantize --ref on a model of two inputs takes a file for each
// (--input NAME=FILE) or the test data set beside the model, writes
// input_0.npy and input_1.npy (in the model's input order) with the
// reference machine's outputs, and ONNX Runtime running the exported
// model on those two files gives the int8 output bit for bit and the
// dequantized one.
func TestQuantizeTwoInputs(t *testing.T) {
	dir := t.TempDir()
	model, a, b := twoInputModel(t, dir)
	set := filepath.Join(t.TempDir(), "test_data_set_0") // beside a copy of the model
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	besides := filepath.Join(filepath.Dir(set), "two.onnx")
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(besides, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for k, x := range []*struct {
		name string
		dims []int64
		v    []float32
	}{{"a", []int64{1, 2, 4, 4}, sine(11, 1, 32)}, {"b", []int64{3}, sine(12, 1, 3)}} {
		pb, err := proto.Marshal(onnxtest.FloatTensor(x.name, x.dims, x.v...))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(set, fmt.Sprintf("input_%d.pb", k)), pb, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		model string
		args  []string
		want  [2]string // the inputs' sources
	}{
		{"files", model, []string{"--input", "b=" + b, "--input", "a=" + a}, [2]string{"a " + a, "b " + b}},
		{"test data set", besides, nil, [2]string{"input_0.pb", "input_1.pb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			q, ref := filepath.Join(out, "q.onnx"), filepath.Join(out, "ref")
			code, stdout, stderr := capture(t, append([]string{"quantize", "--model", tc.model, "-o", q, "--ref", ref}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
			}
			for _, w := range append(tc.want[:], "on the inputs a, b", "input_0.npy, input_1.npy, y_int8.npy, y.npy",
				filepath.Join(ref, "input_0.npy")+","+filepath.Join(ref, "input_1.npy")) {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			var runs []onnxtest.NPY
			for k, shape := range [][]int{{1, 2, 4, 4}, {3}} {
				x, err := readFloatNPY(filepath.Join(ref, fmt.Sprintf("input_%d.npy", k)), nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(shape, x.Shape); d != "" {
					t.Fatalf("input_%d.npy shape (-want +got):\n%s", k, d)
				}
				runs = append(runs, onnxtest.Float32NPY(x.Shape, x.Data))
			}
			raw, err := readNPY(filepath.Join(ref, "y_int8.npy"), golden.S(8), nil)
			if err != nil {
				t.Fatal(err)
			}
			deq, err := readFloatNPY(filepath.Join(ref, "y.npy"), nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := os.ReadFile(q)
			if err != nil {
				t.Fatal(err)
			}
			node := onnxtest.NeedORT(t)
			res := onnxtest.RunORT(t, node, m, [][]onnxtest.NPY{runs})[0]
			var got []int64
			for _, v := range res["y_int8"].Data {
				got = append(got, int64(v))
			}
			if d := cmp.Diff(raw.Data, got); d != "" {
				t.Errorf("y_int8 (-reference machine +ONNX Runtime):\n%s", d)
			}
			var gotF []float32
			for _, v := range res["y"].Data {
				gotF = append(gotF, float32(v))
			}
			if d := cmp.Diff(deq.Data, gotF); d != "" {
				t.Errorf("y (-reference machine dequantized +ONNX Runtime):\n%s", d)
			}
		})
	}
}

// hwgen quantize refuses in one line: a plain --input FILE or an input
// of a wrong shape for a model of two inputs, and an input of one image
// for a model of batch 3 (naming the input, the shape and the one it
// needs); nothing is written.
func TestQuantizeInputsRefused(t *testing.T) {
	dir := t.TempDir()
	model, a, _ := twoInputModel(t, dir)
	batch := batchConvModel(t, dir, "batch.onnx", 3, 2)
	one := writeArray(t, dir, "one.npy", onnx.NewArray(1, 2, 5, 5))
	out, ref := filepath.Join(dir, "q.onnx"), filepath.Join(dir, "ref")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"plain file", []string{"--model", model, "--input", a}, "the model has inputs a, b: give NAME=FILE for each"},
		{"wrong shape", []string{"--model", model, "--input", "a=" + a, "--input", "b=" + a}, "--input b=" + a + ": shape [1 2 4 4]; the model's input b needs [3]"},
		{"batch input of one image", []string{"--model", batch, "--input", one}, "--input " + one + ": shape [1 2 5 5]; the model's input x needs [3 2 5 5] (a batch of 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := capture(t, append([]string{"quantize", "-o", out, "--ref", ref}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q: want one line containing %q", stderr, tc.want)
			}
			if exists(out) || exists(ref) {
				t.Errorf("%s or %s written by a failed command", out, ref)
			}
		})
	}
}

// hwgen quantize --ref on a model of batch 3 exports one image's model
// and writes a reference per image (image_k/input.npy [1,...] and the
// outputs): ONNX Runtime on each image's input gives its int32 output bit
// for bit and its dequantized one, and each is row k of hwgen run's
// joined output of the batch on the same input. Two weight seeds.
func TestQuantizeBatch(t *testing.T) {
	node := onnxtest.NeedORT(t)
	for _, seed := range []float64{2, 6} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			dir := t.TempDir()
			model := batchConvModel(t, dir, "batch.onnx", 3, seed)
			x := onnx.NewArray(3, 2, 5, 5)
			copy(x.Data, sine(seed+1, 1.5, len(x.Data)))
			in := writeArray(t, dir, "x.npy", x)
			q, ref, res := filepath.Join(dir, "q.onnx"), filepath.Join(dir, "ref"), filepath.Join(dir, "res")
			code, stdout, stderr := capture(t, "quantize", "--model", model, "--input", in, "-o", q, "--ref", ref)
			if code != exitOK {
				t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
			}
			for _, w := range []string{"input x FLOAT [1 2 5 5]", "on image 2 of the batch", filepath.Join(ref, "image_2") + ": input.npy, y_int32.npy, y.npy"} {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			if code, stdout, stderr := capture(t, "run", "--model", model, "--input", in, "--engine", "interp", "--out", res); code != exitOK {
				t.Fatalf("run: exit %d; stderr: %s\nstdout:\n%s", code, stderr, stdout)
			}
			joined, err := readNPY(filepath.Join(res, "logits_int32.npy"), compiler.Int32, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := os.ReadFile(q)
			if err != nil {
				t.Fatal(err)
			}
			var runs [][]onnxtest.NPY
			var raws [][]int64
			var deqs [][]float32
			for k := range 3 {
				im := filepath.Join(ref, fmt.Sprintf("image_%d", k))
				xk, err := readFloatNPY(filepath.Join(im, "input.npy"), nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(x.Data[k*50:(k+1)*50], xk.Data); d != "" || len(xk.Shape) != 4 || xk.Shape[0] != 1 {
					t.Errorf("image %d: input.npy %v (-batch's image +written):\n%s", k, xk.Shape, d)
				}
				runs = append(runs, []onnxtest.NPY{onnxtest.Float32NPY(xk.Shape, xk.Data)})
				r, err := readNPY(filepath.Join(im, "y_int32.npy"), compiler.Int32, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(joined.Data[k*3:(k+1)*3], r.Data); d != "" {
					t.Errorf("image %d: y_int32 (-hwgen run's row +--ref):\n%s", k, d)
				}
				f, err := readFloatNPY(filepath.Join(im, "y.npy"), nil)
				if err != nil {
					t.Fatal(err)
				}
				raws, deqs = append(raws, r.Data), append(deqs, f.Data)
			}
			for k, out := range onnxtest.RunORT(t, node, m, runs) {
				var got []int64
				for _, v := range out["y_int32"].Data {
					got = append(got, int64(v))
				}
				if d := cmp.Diff(raws[k], got); d != "" {
					t.Errorf("image %d: y_int32 (-reference machine +ONNX Runtime):\n%s", k, d)
				}
				var gotF []float32
				for _, v := range out["y"].Data {
					gotF = append(gotF, float32(v))
				}
				if d := cmp.Diff(deqs[k], gotF); d != "" {
					t.Errorf("image %d: y (-reference machine dequantized +ONNX Runtime):\n%s", k, d)
				}
			}
		})
	}
}
