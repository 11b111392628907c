package export

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// The checks that matter run the exported models on ONNX Runtime
// (scripts/ort/run.js, onnxruntime-node, through onnxtest.RunORT) and
// compare with the NPU's reference machine and the golden models bit for
// bit. They need node and scripts/ort's node_modules (scripts/setup.sh
// installs both); CI requires them like Verilator.

var (
	needORT    = onnxtest.NeedORT
	float32NPY = onnxtest.Float32NPY
	int8NPY    = onnxtest.Int8NPY
)

type (
	npyArray  = onnxtest.NPY
	ortTensor = onnxtest.ORTTensor
)

// runORT runs model on ONNX Runtime once per input (the model has one)
// and returns the outputs of each run.
func runORT(t *testing.T, node string, m *onnxpb.ModelProto, inputs []npyArray) []map[string]ortTensor {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	runs := make([][]npyArray, len(inputs))
	for i, in := range inputs {
		runs[i] = []npyArray{in}
	}
	return onnxtest.RunORT(t, node, b, runs)
}
