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

// ORTJob is one model for RunORTBatch and its runs, a run giving one
// array per model input in the model's input order.
type ORTJob struct {
	Model []byte
	Runs  [][]NPY
}

// ORTResult is what ONNX Runtime gave for a job: each run's outputs by
// name, or the error it stopped the job with (a model it refuses).
type ORTResult struct {
	Runs []map[string]ORTTensor
	Err  string
}

// RunORT runs the serialized model on ONNX Runtime once per run and
// returns each run's outputs by name; an error ends the test.
func RunORT(t testing.TB, node string, model []byte, runs [][]NPY) []map[string]ORTTensor {
	t.Helper()
	res := RunORTBatch(t, node, []ORTJob{{Model: model, Runs: runs}})[0]
	if res.Err != "" {
		t.Fatalf("ONNX Runtime: %s", res.Err)
	}
	return res.Runs
}

// RunORTBatch runs many models in one ONNX Runtime process (run.js
// --batch): loading the runtime costs far more than running a small
// model, so a table of small models runs in one go.
func RunORTBatch(t testing.TB, node string, jobs []ORTJob) []ORTResult {
	t.Helper()
	// Not t.TempDir: its name holds the test's, which may hold the comma
	// that run.js splits an argument's files on.
	dir, err := os.MkdirTemp("", "ort")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	type job struct {
		Model  string   `json:"model"`
		Inputs []string `json:"inputs"`
	}
	list := make([]job, len(jobs))
	for j, jb := range jobs {
		list[j].Model = filepath.Join(dir, fmt.Sprintf("model%d.onnx", j))
		if err := os.WriteFile(list[j].Model, jb.Model, 0o644); err != nil {
			t.Fatal(err)
		}
		for i, run := range jb.Runs {
			var files []string
			for k, in := range run {
				p := filepath.Join(dir, fmt.Sprintf("in%d_%d_%d.npy", j, i, k))
				if err := in.write(p); err != nil {
					t.Fatal(err)
				}
				files = append(files, p)
			}
			list[j].Inputs = append(list[j].Inputs, strings.Join(files, ","))
		}
	}
	listFile := filepath.Join(dir, "jobs.json")
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(listFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, filepath.Join(ortDir(t), "run.js"), "--batch", listFile)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run.js: %v\n%s", err, stderr.String())
	}
	res := make([]ORTResult, len(jobs))
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var line struct {
			Job     int                  `json:"job"`
			Error   string               `json:"error"`
			Outputs map[string]ORTTensor `json:"outputs"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Job < 0 || line.Job >= len(jobs) {
			t.Fatalf("run.js printed %.200q: %v", sc.Text(), err)
		}
		if line.Error != "" {
			res[line.Job].Err = line.Error
			continue
		}
		res[line.Job].Runs = append(res[line.Job].Runs, line.Outputs)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading run.js's output: %v", err)
	}
	for j, r := range res {
		if r.Err == "" && len(r.Runs) != len(jobs[j].Runs) {
			t.Fatalf("run.js printed %d results for job %d's %d runs", len(r.Runs), j, len(jobs[j].Runs))
		}
	}
	return res
}
