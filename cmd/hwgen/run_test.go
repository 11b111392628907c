package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

const mnistModel = "../../frontend/onnx/testdata/mnist-7.onnx"

// capture runs hwgen with args and returns its exit status, standard
// output and standard error.
func capture(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = stdout, stderr
	code := run(args)
	os.Stdout, os.Stderr = oldOut, oldErr
	stdout.Close()
	stderr.Close()
	out, _ := os.ReadFile(stdout.Name())
	errs, _ := os.ReadFile(stderr.Name())
	return code, string(out), string(errs)
}

// softmaxModel is a valid ONNX model whose one node is an op hwgen does
// not lower.
func softmaxModel(t *testing.T) []byte {
	t.Helper()
	value := func(name string) *onnxpb.ValueInfoProto {
		return &onnxpb.ValueInfoProto{
			Name: proto.String(name),
			Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
				ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)),
				Shape: &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{
					{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 1}},
					{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 10}},
				}},
			}}},
		}
	}
	b, err := proto.Marshal(&onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{
			Name:   proto.String("soft"),
			Input:  []*onnxpb.ValueInfoProto{value("x")},
			Output: []*onnxpb.ValueInfoProto{value("y")},
			Node:   []*onnxpb.NodeProto{{Name: proto.String("probs"), OpType: proto.String("Einsum"), Input: []string{"x"}, Output: []string{"y"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mnist-7 on its test image runs on the reference machine and on the Go
// simulator: PASS, class 2, and --out writes both logits files (int32
// logits by default, int8 with --int8-output).
func TestRunMnist(t *testing.T) {
	for _, tc := range []struct {
		engine string
		int8   bool
	}{{"interp", false}, {"go", false}, {"interp", true}} {
		kind := "int32"
		if tc.int8 {
			kind = "int8"
		}
		engine := tc.engine
		t.Run(engine+"/"+kind, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "res")
			args := []string{"run", "--model", mnistModel, "--engine", engine, "--out", out}
			if tc.int8 {
				args = append(args, "--int8-output")
			}
			code, stdout, stderr := capture(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
			}
			for _, want := range []string{"result    PASS", "top-1 2", "top-1 agree", "test_data_set_0", "optimistic", "Convolution28",
				"PASS: the " + map[bool]string{true: "reference machine's", false: "NPU's"}[engine == "interp"] + " " + kind + " "} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			if engine == "go" && !strings.Contains(stdout, "MAC utilization") {
				t.Errorf("output lacks the cycle report:\n%s", stdout)
			}
			logits, err := readFloatNPY(filepath.Join(out, "logits.npy"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if a := onnx.Argmax(logits.Data); a != 2 || len(logits.Data) != 10 {
				t.Errorf("logits.npy: %d values, argmax %d; want 10 values, argmax 2", len(logits.Data), a)
			}
			if _, err := os.Stat(filepath.Join(out, "logits_"+kind+".npy")); err != nil {
				t.Error(err)
			}
		})
	}
}

// A model needing more external memory than ext_addr_width runs with the
// width its program needs, on the simulator too, and the report says so.
func TestRunGrowsExternalMemory(t *testing.T) {
	code, stdout, stderr := capture(t, "run", "--model", mnistModel, "--engine", "go", "--set", "ext_addr_width=6")
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"ext_addr_width 6 → 12", "result    PASS: the NPU's"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// The caller's mistakes exit with status 2 and one line naming the
// problem.
func TestRunUsageErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := write("garbage.onnx", []byte("not a model"))
	softmax := write("softmax.onnx", softmaxModel(t))
	mnist, err := os.ReadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	lone := write("lone.onnx", mnist) // no test data set beside it
	wrong := filepath.Join(dir, "wrong.npy")
	if err := writeFloatNPY(wrong, onnx.NewArray(1, 28, 28)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string // in the one line on stderr
	}{
		{"missing model", []string{"--model", filepath.Join(dir, "none.onnx")}, []string{"--model", "none.onnx"}},
		{"garbage model", []string{"--model", garbage}, []string{"--model", "garbage.onnx", "not a valid ONNX model"}},
		{"unsupported op", []string{"--model", softmax, "--input", wrong}, []string{"probs", "Einsum", "not supported"}},
		{"wrong input shape", []string{"--model", mnistModel, "--input", wrong}, []string{"wrong.npy", "[1 28 28]", "[1 1 28 28]"}},
		{"wrong calibration shape", []string{"--model", mnistModel, "--calib", wrong}, []string{"--calib", "wrong.npy", "[1 28 28]"}},
		{"no random calibration inputs", []string{"--model", lone, "--random-calib", "0"}, []string{"--random-calib 0", "at least 1"}},
		{"timeline without a simulator", []string{"--model", mnistModel, "--engine", "interp", "--timeline", filepath.Join(dir, "t.json")}, []string{"--timeline"}},
		{"unwritable output", []string{"--model", mnistModel, "--out", filepath.Join(garbage, "res")}, []string{"--out"}},
		{"bad npu config", []string{"--model", mnistModel, "--set", "cols=64"}, []string{"cols"}},
		{"inputs with --data", []string{"--model", mnistModel, "--inputs", dir, "--data", "mnist"}, []string{"--inputs", "not with --data"}},
		{"inputs of a wrong shape", []string{"--model", mnistModel, "--inputs", dir}, []string{"--inputs", "wrong.npy", "[1 28 28]", "[1 1 28 28]"}},
		// A map larger than the state buffer spills to external memory, but
		// a conv's streamed input band and staged output must fit.
		{"model too big for the configuration", []string{"--model", mnistModel, "--engine", "interp", "--set", "state_depth=64"},
			[]string{"compile mnist-7.onnx", "needs 168 state addresses", "state_depth 64"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
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

// On a simulator the report splits the PE array's work by layer: the
// share of the run it had work, its utilization then, and each layer's,
// whose busy cycles add up to no more than the run's.
func TestRunLayerUse(t *testing.T) {
	code, stdout, stderr := capture(t, "run", "--model", mnistModel, "--engine", "go", "--layers")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var busy, cycles int
	var while float64
	i := strings.Index(stdout, "PE array  busy ")
	if i < 0 {
		t.Fatalf("no PE array line:\n%s", stdout)
	}
	var share float64
	if _, err := fmt.Sscanf(stdout[i:], "PE array  busy %f%% of the run (%d of %d cycles); %f%%", &share, &busy, &cycles, &while); err != nil {
		t.Fatalf("PE array line: %v\n%s", err, stdout[i:])
	}
	sum := 0
	for _, layer := range []string{"conv2d0", "conv2d1", "gemm0"} {
		j := strings.Index(stdout, "layer     "+layer+" ")
		if j < 0 {
			t.Fatalf("no line for %s:\n%s", layer, stdout)
		}
		var name string
		var u float64
		var b int
		if _, err := fmt.Sscanf(stdout[j:], "layer %s %f%% MAC utilization while its NE tasks ran (%d cycles", &name, &u, &b); err != nil {
			t.Fatalf("%s: %v\n%s", layer, err, stdout[j:])
		}
		if u <= 0 || u > 100 {
			t.Errorf("%s: utilization %.1f%%", layer, u)
		}
		sum += b
	}
	if busy > cycles || sum < busy || while <= 0 || while > 100 {
		t.Errorf("busy %d of %d cycles, layers' busy cycles sum to %d, %.1f%% while busy", busy, cycles, sum, while)
	}
}
