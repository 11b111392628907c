package onnxtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/internal/tooltest"
)

// ONNX Runtime is the independent judge of the float executor and of the
// exported int8 models: RunORT runs a model through scripts/ort/run.js
// (onnxruntime-node's CPU provider). It needs node and scripts/ort's
// node_modules (scripts/setup.sh installs both); NeedORT skips a test
// without them, which CI counts as a failure like a missing Verilator.

// ortDir is scripts/ort, found from the test's directory upwards (tests
// run in their package's directory).
func ortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "scripts", "ort")
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory: cannot find scripts/ort")
		}
		dir = up
	}
}

// NeedORT returns node's path, or skips t when node or onnxruntime-node
// is missing.
func NeedORT(t testing.TB) string {
	t.Helper()
	node := tooltest.Need(t, "node")
	if _, err := os.Stat(filepath.Join(ortDir(t), "node_modules", "onnxruntime-node", "package.json")); err != nil {
		tooltest.Skip(t, tooltest.MissingTool, "onnxruntime-node is not installed in scripts/ort; run scripts/setup.sh (npm ci there)")
	}
	return node
}

// ORTTensor is one output as run.js prints it.
type ORTTensor struct {
	Type string    `json:"type"`
	Dims []int     `json:"dims"`
	Data []float64 `json:"data"` // JSON numbers: exact for int8, int32, float32
}

// NPY is an input for run.js: a .npy descr, a shape and the raw
// little-endian data.
type NPY struct {
	Descr string
	Shape []int
	Data  []byte
}

// Float32NPY is a FLOAT input.
func Float32NPY(shape []int, v []float32) NPY {
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	return NPY{"<f4", shape, raw}
}

// Int8NPY is an INT8 input.
func Int8NPY(shape []int, v []int64) NPY {
	raw := make([]byte, len(v))
	for i, x := range v {
		raw[i] = byte(int8(x))
	}
	return NPY{"|i1", shape, raw}
}

// write stores a as a format 1.0 .npy file.
func (a NPY) write(path string) error {
	dims := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = fmt.Sprint(d)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.Descr, shape)
	h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(a.Data)
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// RunORT runs the serialized model on ONNX Runtime once per run, a run
// giving one array per model input in the model's input order, and
// returns each run's outputs by name.
func RunORT(t testing.TB, node string, model []byte, runs [][]NPY) []map[string]ORTTensor {
	t.Helper()
	// Not t.TempDir: its name holds the test's, which may hold the comma
	// that run.js splits an argument's files on.
	dir, err := os.MkdirTemp("", "ort")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(path, model, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(ortDir(t), "run.js"), path, "--json"}
	for i, run := range runs {
		var files []string
		for j, in := range run {
			p := filepath.Join(dir, fmt.Sprintf("in%d_%d.npy", i, j))
			if err := in.write(p); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
		args = append(args, strings.Join(files, ","))
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run.js: %v\n%s", err, stderr.String())
	}
	var res []map[string]ORTTensor
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var line struct {
			Outputs map[string]ORTTensor `json:"outputs"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("run.js printed %q: %v", sc.Text(), err)
		}
		res = append(res, line.Outputs)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading run.js's output: %v", err)
	}
	if len(res) != len(runs) {
		t.Fatalf("run.js printed %d results for %d runs:\n%s", len(res), len(runs), stdout.String())
	}
	return res
}
