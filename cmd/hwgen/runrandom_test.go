package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// loneMnist is a copy of mnist-7 with no test data set beside it: hwgen
// run then takes a seeded random input.
func loneMnist(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "lone.onnx")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runLogits runs hwgen run with args on the reference machine and returns
// its report and dequantized logits.
func runLogits(t *testing.T, args ...string) (string, []float32) {
	t.Helper()
	out := t.TempDir()
	code, stdout, stderr := capture(t, append([]string{"run", "--engine", "interp", "--out", out}, args...)...)
	if code != 0 {
		t.Fatalf("hwgen run %v: exit %d\n%s%s", args, code, stdout, stderr)
	}
	y, err := readFloatNPY(filepath.Join(out, "logits.npy"), func([]int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return stdout, y.Data
}

// --random-weights fills the weights from its seed and the report says
// so; with no input beside the model the input and the calibration set
// are seeded random tensors, their seeds in the report. The same seeds
// give the same logits, another weight or input seed other ones.
func TestRunRandomWeights(t *testing.T) {
	model := loneMnist(t)
	type run struct {
		name string
		args []string
		want []string // lines of the report
	}
	runs := []run{
		{"seed 1", []string{"--random-weights", "1"}, []string{
			"weights   seeded random, seed 1 (onnx.RandomWeights, then constant-folded): 5994 float weights",
			"input     random, uniform in [0,1), [1 1 28 28], seed 1 (--input-seed",
			"calibrate on 4 random inputs uniform in [0,1), seeds 2..5 (--random-calib",
		}},
		{"seed 1 again", []string{"--random-weights", "1"}, nil},
		{"seed 2", []string{"--random-weights", "2"}, []string{"weights   seeded random, seed 2 "}},
		{"input seed 7, 2 calibration inputs", []string{"--random-weights", "1", "--input-seed", "7", "--random-calib", "2"}, []string{
			"input     random, uniform in [0,1), [1 1 28 28], seed 7 ",
			"calibrate on 2 random inputs uniform in [0,1), seeds 8..9 ",
		}},
	}
	logits := map[string][]float32{}
	for _, r := range runs {
		report, y := runLogits(t, append([]string{"--model", model}, r.args...)...)
		for _, w := range r.want {
			if !strings.Contains(report, w) {
				t.Errorf("%s: the report lacks %q:\n%s", r.name, w, report)
			}
		}
		logits[r.name] = y
	}
	if diff := cmp.Diff(logits["seed 1"], logits["seed 1 again"]); diff != "" {
		t.Errorf("the same seeds gave other logits (-first +second):\n%s", diff)
	}
	for _, other := range []string{"seed 2", "input seed 7, 2 calibration inputs"} {
		if slices.Equal(logits["seed 1"], logits[other]) {
			t.Errorf("%s gave the logits of seed 1: %v", other, logits[other])
		}
	}
}

// positiveConvNet is x [1,2,8,8] → Conv 3×3 (pad 1, positive weights) →
// Relu → Conv 1×1 → y: on an input larger than its calibration set every
// conv output that sees a full window of clamped inputs is at least the
// calibrated maximum, so it saturates.
func positiveConvNet(t *testing.T, seed uint64) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	w1 := make([]float32, 3*2*3*3)
	for i := range w1 {
		w1[i] = 0.05 + rng.Float32()/4
	}
	w2 := make([]float32, 4*3)
	for i := range w2 {
		w2[i] = rng.Float32() - 0.5
	}
	b, err := onnxtest.New(13).Input("x", 1, 2, 8, 8).Output("y").
		Float("w1", []int64{3, 2, 3, 3}, w1...).Float("w2", []int64{4, 3, 1, 1}, w2...).
		Node("conv1", "Conv", []string{"x", "w1"}, "c1", onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("relu1", "Relu", []string{"c1"}, "r1").
		Node("conv2", "Conv", []string{"r1", "w2"}, "y").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Calibrated on an input a tenth of the one it runs on, a net says that
// the whole input is beyond the calibrated range and that the first
// layer saturates; calibrated on the input itself it says neither.
func TestRunQualitySaturation(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		dir := t.TempDir()
		model := filepath.Join(dir, "pos.onnx")
		if err := os.WriteFile(model, positiveConvNet(t, seed), 0o644); err != nil {
			t.Fatal(err)
		}
		x, small := randomInput([]int{1, 2, 8, 8}, seed), onnx.NewArray(1, 2, 8, 8)
		for i, v := range x.Data {
			x.Data[i] = 0.5 + v/2 // in [0.5,1)
			small.Data[i] = x.Data[i] / 10
		}
		in, calib := filepath.Join(dir, "x.npy"), filepath.Join(dir, "small.npy")
		if err := writeFloatNPY(in, x); err != nil {
			t.Fatal(err)
		}
		if err := writeFloatNPY(calib, small); err != nil {
			t.Fatal(err)
		}
		report, _ := runLogits(t, "--model", model, "--input", in, "--calib", calib, "--layers")
		if !strings.Contains(report, "warning   the input is beyond the calibrated input range ±0.09") || !strings.Contains(report, "100.00% (128/128) of its elements") {
			t.Errorf("seed %d: no warning that the whole input is beyond the calibrated range:\n%s", seed, report)
		}
		m := regexp.MustCompile(`quality   r1 +SQNR [^,]+, saturated ([0-9.]+)%`).FindStringSubmatch(report)
		if m == nil {
			t.Fatalf("seed %d: no quality line for r1:\n%s", seed, report)
		}
		if sat, _ := strconv.ParseFloat(m[1], 64); sat < 50 {
			t.Errorf("seed %d: r1 saturated %.2f%%, want at least the 36 of 64 pixels with a full window (56%%):\n%s", seed, sat, report)
		}
		if !regexp.MustCompile(`quality   over 2 layers: worst layer SQNR -?[0-9.]+ dB \(\w+\), highest saturation [0-9.]+% \(\d+/192\) \(r1\), logits SQNR -?[0-9.]+ dB`).MatchString(report) {
			t.Errorf("seed %d: no summary naming r1 as the most saturated layer:\n%s", seed, report)
		}
		self, _ := runLogits(t, "--model", model, "--input", in)
		if strings.Contains(self, "warning") || strings.Contains(self, "--layers lists each") == false {
			t.Errorf("seed %d: calibrated on the input itself: want no warning and the summary only:\n%s", seed, self)
		}
	}
}

// An input holding an infinity (or a NaN) is refused in one line naming
// the element, exit 2, before anything runs.
func TestRunNonFiniteInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		v     float64
		index int
		want  string
	}{
		{"+Inf", math.Inf(1), 5, "element 5 [0 0 0 5] is +Inf"},
		{"-Inf", math.Inf(-1), 100, "element 100 [0 0 3 16] is -Inf"},
		{"NaN", math.NaN(), 783, "element 783 [0 0 27 27] is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := randomInput([]int{1, 1, 28, 28}, 1)
			x.Data[tc.index] = float32(tc.v)
			p := filepath.Join(dir, tc.name+".npy")
			if err := writeFloatNPY(p, x); err != nil {
				t.Fatal(err)
			}
			for _, flag := range []string{"--input", "--calib"} {
				code, _, stderr := capture(t, "run", "--model", mnistModel, "--engine", "interp", flag, p)
				if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
					t.Errorf("%s: exit %d, want %d with one line; stderr:\n%s", flag, code, exitUsage, stderr)
				}
				for _, w := range []string{flag, tc.name + ".npy", tc.want, "must be finite"} {
					if !strings.Contains(stderr, w) {
						t.Errorf("%s: stderr lacks %q: %s", flag, w, stderr)
					}
				}
			}
		})
	}
}

// A net ending in a Softmax reports the SQNR of the Softmax's input (the
// logits) and of its probabilities apart: the report names the input.
func TestRunSoftmaxLogitsQuality(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	w := make([]float32, 10*12)
	for i := range w {
		w[i] = rng.Float32() - 0.5
	}
	b, err := onnxtest.New(13).Input("x", 1, 3, 2, 2).Output("y").
		Float("w", []int64{10, 12}, w...).
		Node("flat", "Flatten", []string{"x"}, "f").
		Node("fc", "Gemm", []string{"f", "w"}, "logits", onnxtest.Int("transB", 1)).
		Node("probs", "Softmax", []string{"logits"}, "y").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "soft.onnx")
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	report, y := runLogits(t, "--model", model)
	for _, want := range []string{"(the Softmax's input logits; its probabilities ", "result    PASS"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if len(y) != 10 {
		t.Errorf("%d probabilities, want 10", len(y))
	}
}
