package export

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

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/internal/tooltest"
)

// The checks that matter run the exported models on ONNX Runtime
// (scripts/ort/run.js, onnxruntime-node) and compare with the NPU's
// reference machine and the golden models bit for bit. They need node
// and scripts/ort's node_modules (scripts/setup.sh installs both); CI
// requires them like Verilator.

const ortDir = "../../scripts/ort"

// needORT returns node's path, or skips t when node or onnxruntime-node
// is missing.
func needORT(t *testing.T) string {
	t.Helper()
	node := tooltest.Need(t, "node")
	if _, err := os.Stat(filepath.Join(ortDir, "node_modules", "onnxruntime-node", "package.json")); err != nil {
		tooltest.Skip(t, tooltest.MissingTool, "onnxruntime-node is not installed in scripts/ort; run scripts/setup.sh (npm ci there)")
	}
	return node
}

// ortTensor is one output as run.js prints it.
type ortTensor struct {
	Type string    `json:"type"`
	Dims []int     `json:"dims"`
	Data []float64 `json:"data"` // JSON numbers: exact for int8, int32, float32
}

// npyArray is an input for run.js: a .npy descr, a shape and the raw
// little-endian data.
type npyArray struct {
	descr string
	shape []int
	data  []byte
}

func float32NPY(shape []int, v []float32) npyArray {
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	return npyArray{"<f4", shape, raw}
}

func int8NPY(shape []int, v []int64) npyArray {
	raw := make([]byte, len(v))
	for i, x := range v {
		raw[i] = byte(int8(x))
	}
	return npyArray{"|i1", shape, raw}
}

// write stores a as a format 1.0 .npy file.
func (a npyArray) write(path string) error {
	dims := make([]string, len(a.shape))
	for i, d := range a.shape {
		dims[i] = fmt.Sprint(d)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.descr, shape)
	h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(a.data)
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// runORT runs model on ONNX Runtime once per input and returns the
// outputs of each run.
func runORT(t *testing.T, node string, m *onnxpb.ModelProto, inputs []npyArray) []map[string]ortTensor {
	t.Helper()
	dir := t.TempDir()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(ortDir, "run.js"), model, "--json"}
	for i, in := range inputs {
		p := filepath.Join(dir, fmt.Sprintf("in%d.npy", i))
		if err := in.write(p); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run.js: %v\n%s", err, stderr.String())
	}
	var res []map[string]ortTensor
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Outputs map[string]ortTensor `json:"outputs"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("run.js printed %q: %v", sc.Text(), err)
		}
		res = append(res, line.Outputs)
	}
	if len(res) != len(inputs) {
		t.Fatalf("run.js printed %d results for %d inputs:\n%s", len(res), len(inputs), stdout.String())
	}
	return res
}
