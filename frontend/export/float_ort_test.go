package export

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// The float executor's unary elementwise ops equal ONNX Runtime's on
// the float model, bit for bit (each is exact in float32).
func TestORTFloatUnary(t *testing.T) {
	node := needORT(t)
	for _, o := range onnx.OpTable {
		if o.Eltwise == "" {
			continue
		}
		t.Run(o.Name, func(t *testing.T) {
			data, err := onnxtest.New(13).Input("x", 1, 2, 3, 3).Output("y").Node("op", o.Name, []string{"x"}, "y").Bytes()
			if err != nil {
				t.Fatal(err)
			}
			m, err := onnx.Load(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			x := waveInput(3, 1, 2, 3, 3)
			x.Data[0], x.Data[1] = -128, 0
			out, err := m.Graph.Run(map[string]*onnx.Array{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			var pb onnxpb.ModelProto
			if err := proto.Unmarshal(data, &pb); err != nil {
				t.Fatal(err)
			}
			ort := runORT(t, node, &pb, []npyArray{float32NPY(x.Shape, x.Data)})[0]["y"]
			got := out["y"].Data
			if len(ort.Data) != len(got) {
				t.Fatalf("ONNX Runtime gave %d values, the float executor %d", len(ort.Data), len(got))
			}
			for i := range got {
				if float64(got[i]) != ort.Data[i] {
					t.Errorf("element %d: float executor %g, ONNX Runtime %g", i, got[i], ort.Data[i])
				}
			}
		})
	}
}
