package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// hwgen quantize writes mnist-7 as an int8 ONNX model that the project's
// loader reads back, and with --ref the input and the NPU's outputs; on
// ONNX Runtime (when installed) the comparison command of docs/onnx.md reports
// them identical. The output is int32 by default, as hwgen run's, or int8.
func TestQuantizeMnist(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		raw  string
		elem golden.Int
	}{
		{"int32 output", nil, "int32", compiler.Int32},
		{"int8 output, half-even", []string{"--int8-output", "--rounding", "half-even"}, "int8", golden.S(8)},
	} {
		t.Run(tc.name, func(t *testing.T) { checkQuantize(t, tc.args, tc.raw, tc.elem) })
	}
}

func checkQuantize(t *testing.T, args []string, raw string, elem golden.Int) {
	dir := t.TempDir()
	model, ref := filepath.Join(dir, "q.onnx"), filepath.Join(dir, "ref")
	code, stdout, stderr := capture(t, append([]string{"quantize", "--model", mnistModel, "-o", model, "--ref", ref}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	rawName := "Plus214_Output_0_" + raw
	for _, want := range []string{"exported", "opset 13", "ConvInteger 2", "MatMulInteger 1",
		rawName + " " + strings.ToUpper(raw) + " [1 10]", "Convolution28"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	m, err := onnx.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Opset != 13 || len(m.Graph.Outputs) != 2 {
		t.Errorf("opset %d, %d outputs; want 13 and 2", m.Opset, len(m.Graph.Outputs))
	}
	q, err := readNPY(filepath.Join(ref, rawName+".npy"), elem, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "npu       "+raw+" Plus214_Output_0 "+fmt.Sprint(q.Data)) {
		t.Errorf("%s.npy %v is not the printed output:\n%s", rawName, q.Data, stdout)
	}
	for _, f := range []string{"input.npy", "Plus214_Output_0.npy"} {
		if _, err := readFloatNPY(filepath.Join(ref, f), nil); err != nil {
			t.Error(err)
		}
	}

	node, err := exec.LookPath("node")
	if err != nil || !exists("../../scripts/ort/node_modules/onnxruntime-node/package.json") {
		tooltest.Skip(t, tooltest.MissingTool, "node or scripts/ort's onnxruntime-node missing; run scripts/setup.sh")
	}
	out, err := exec.Command(node, "../../scripts/ort/run.js", model, filepath.Join(ref, "input.npy"),
		"--expect", rawName+"="+filepath.Join(ref, rawName+".npy"),
		"--expect", "Plus214_Output_0="+filepath.Join(ref, "Plus214_Output_0.npy")).CombinedOutput()
	if err != nil {
		t.Fatalf("run.js: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "identical"); n != 2 {
		t.Errorf("run.js found %d of 2 outputs identical:\n%s", n, out)
	}
}

// The caller's mistakes exit with status 2 and one line naming the
// problem.
func TestQuantizeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "q.onnx")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"no output", []string{"--model", mnistModel}, []string{"-o"}},
		{"unwritable output", []string{"--model", mnistModel, "-o", filepath.Join(file, "q.onnx")}, []string{"-o", "file"}},
		{"element width", []string{"--model", mnistModel, "-o", out, "--set", "elem_width=16", "--set", "planar_lut=false"}, []string{"elem_width = 16", "INT8"}},
		{"element width with the planar table", []string{"--model", mnistModel, "-o", out, "--set", "elem_width=16"}, []string{"planar_lut = true is not allowed", "elem_width must be at most 10 (it is 16)"}},
		{"missing model", []string{"--model", filepath.Join(dir, "none.onnx"), "-o", out}, []string{"--model", "none.onnx"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := capture(t, append([]string{"quantize"}, tc.args...)...)
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
	if exists(out) {
		t.Errorf("%s written by a failed command", out)
	}
}
