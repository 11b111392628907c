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

// A model of batch 3 lowers image by image; its export is one image's
// model ([1,...]), which ONNX Runtime runs on each image of the batch bit
// for bit as the golden models.
func TestORTBatch(t *testing.T) {
	node := needORT(t)
	cfg := npu.DefaultConfig()
	data, err := onnxtest.New(13).Input("x", 3, 2, 5, 5).Output("y").
		Float("w", []int64{3, 2, 3, 3}, wave(95, 0.5, 3, 2, 3, 3)...).
		Node("conv", "Conv", []string{"x", "w"}, "c", onnxtest.Ints("pads", 1, 1, 1, 1)).
		Node("relu", "Relu", []string{"c"}, "r").
		Node("gap", "GlobalAveragePool", []string{"r"}, "g").
		Node("flat", "Flatten", []string{"g"}, "f").
		Float("fc", []int64{3, 4}, wave(96, 0.5, 3, 4)...).
		Node("fcm", "MatMul", []string{"f", "fc"}, "y").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	x := waveInput(0, 3, 2, 5, 5)
	net, err := lower.Quantize(m, []*onnx.Array{x}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	images, err := net.Images(map[string]*onnx.Array{"x": x})
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
	var runs [][]npyArray
	for _, im := range images {
		runs = append(runs, []npyArray{float32NPY(im["x"].Shape, im["x"].Data)})
	}
	res := onnxtest.RunORT(t, node, b, runs)
	for k, im := range images {
		g, err := net.GraphOf(im)
		if err != nil {
			t.Fatal(err)
		}
		checkORTOutput(t, cfg, net, g, res[k], fmt.Sprintf("image %d", k))
	}
}
