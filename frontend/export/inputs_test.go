package export

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// A net of two graph inputs (a map and a vector, each quantized at its
// own scale), exported and run on ONNX Runtime, gives the golden models'
// integer output and Net.Dequantize's floats bit for bit.
func TestORTTwoInputs(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	data, err := onnxtest.New(13).Input("a", 1, 2, 4, 4).Input("b", 3).Output("y").
		Float("w", []int64{3, 2, 3, 3}, wave(80, 0.5, 3, 2, 3, 3)...).
		Node("conv", "Conv", []string{"a", "w"}, "c", onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("relu", "Relu", []string{"c"}, "r").
		Node("gap", "GlobalAveragePool", []string{"r"}, "g").
		Node("flat", "Flatten", []string{"g"}, "f").
		Node("sum", "Add", []string{"f", "b"}, "y").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var sets []map[string]*onnx.Array
	var runs [][]npyArray
	for i := range 3 {
		a, b := waveInput(float64(i), 1, 2, 4, 4), waveInput(float64(i)+0.5, 3)
		for j := range b.Data {
			b.Data[j] *= 3 // a range of its own
		}
		sets = append(sets, map[string]*onnx.Array{"a": a, "b": b})
		runs = append(runs, []npyArray{float32NPY(a.Shape, a.Data), float32NPY(b.Shape, b.Data)})
	}
	net, err := lower.QuantizeInputs(m, sets, cfg)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Net(net, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	res := onnxtest.RunORT(t, node, b, runs)
	for i, xs := range sets {
		g, err := net.GraphOf(xs)
		if err != nil {
			t.Fatal(err)
		}
		checkORTOutput(t, cfg, net, g, res[i], fmt.Sprintf("inputs %d", i))
	}
}
