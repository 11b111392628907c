package export

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// The ops of one requantized layer: the integer op, then the
// post-processor of a half-up shift (with ReLU when relu).
func layerOps(integer string, relu bool) []string {
	ops := []string{integer, "Cast", "Mul", "Add", "Add", "Mul", "Floor"}
	if relu {
		ops = append(ops, "Max")
	}
	return append(ops, "Clip", "Cast")
}

// The exported mnist-7 is the quantized net op for op, and it reads back
// through the project's loader with its opset, its float input, float and
// int8 outputs, and constants equal to the graph's weights and
// requantization and to the net's scales.
func TestMnistStructure(t *testing.T) {
	cfg := npu.DefaultConfig()
	net, x := mnist(t, cfg)
	m, err := Net(net, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := onnx.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the project's loader: %v", err)
	}
	if got.Opset != Opset || got.Producer != "hwgen" {
		t.Errorf("opset %d, producer %q; want %d, hwgen", got.Opset, got.Producer, Opset)
	}
	in, out := net.Input(), net.Output()
	dims := func(s ...int64) []onnx.Dim {
		d := make([]onnx.Dim, len(s))
		for i, v := range s {
			d[i].Size = v
		}
		return d
	}
	if d := cmp.Diff([]onnx.Value{{Name: in, DType: onnx.Float32, Shape: dims(1, 1, 28, 28)}}, got.Graph.Inputs); d != "" {
		t.Errorf("inputs (-want +got):\n%s", d)
	}
	wantOut := []onnx.Value{
		{Name: out, DType: onnx.Float32, Shape: dims(1, 10)},
		{Name: out + "_int8", DType: onnx.Int8, Shape: dims(1, 10)},
	}
	if d := cmp.Diff(wantOut, got.Graph.Outputs); d != "" {
		t.Errorf("outputs (-want +got):\n%s", d)
	}

	// Conv+Add+Relu, MaxPool, Conv+Add+Relu, MaxPool, Reshape, MatMul+Add.
	want := []string{"Cast", "Div", "Round", "Clip", "Cast"}
	want = append(want, layerOps("ConvInteger", true)...)
	want = append(want, "MaxPool")
	want = append(want, layerOps("ConvInteger", true)...)
	want = append(want, "MaxPool", "Flatten")
	want = append(want, layerOps("MatMulInteger", false)...)
	want = append(want, "Identity", "Cast", "Mul", "Cast")
	var ops []string
	for _, n := range got.Graph.Nodes {
		ops = append(ops, n.OpType)
	}
	if d := cmp.Diff(want, ops); d != "" {
		t.Errorf("op types (-want +got):\n%s", d)
	}
	if err := got.Check(opsUsed); err != nil {
		t.Errorf("an op outside the exporter's list: %v", err)
	}

	// The constants are the graph's and the net's, exactly.
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	gops, err := g.Ops()
	if err != nil {
		t.Fatal(err)
	}
	init := map[string]*onnx.Tensor{}
	for _, c := range got.Graph.Initializers {
		init[c.Name] = c
	}
	scalar := func(name string) float64 {
		t.Helper()
		c := init[name]
		if c == nil || c.DType != onnx.Float64 || len(c.Float64) != 1 {
			t.Fatalf("constant %q: %+v, want one DOUBLE", name, c)
		}
		return c.Float64[0]
	}
	if s := scalar(in + "/scale"); s != net.InputScale() {
		t.Errorf("input scale %v, want %v", s, net.InputScale())
	}
	if s := scalar(in + "/qmax"); s != quant.QMax {
		t.Errorf("input clamp %v, want %v", s, quant.QMax)
	}
	if s := scalar(out + "/scale"); s != net.OutputScale() {
		t.Errorf("output scale %v, want %v", s, net.OutputScale())
	}
	layers := 0
	for _, op := range gops {
		if op.Kind != compiler.OpConv2D && op.Kind != compiler.OpGEMM {
			continue
		}
		layers++
		w := init[op.Label+"/w"]
		if op.Kind == compiler.OpGEMM {
			w = init[op.Label+"/b"]
		}
		if w == nil || w.DType != onnx.Int8 {
			t.Fatalf("%s: weights %+v, want INT8", op.Label, w)
		}
		var wv []int64
		for _, v := range w.Int8 {
			wv = append(wv, int64(v))
		}
		if d := cmp.Diff(op.Weights.Data, wv); d != "" {
			t.Errorf("%s: weights (-graph +model):\n%s", op.Label, d)
		}
		var scale, bias []int64
		for i, v := range init[op.Label+"/scale"].Float64 {
			scale = append(scale, int64(v))
			bias = append(bias, int64(init[op.Label+"/bias"].Float64[i]))
		}
		if d := cmp.Diff(op.PerChannel, &compiler.ChannelRequant{Scale: scale, Bias: bias}); d != "" {
			t.Errorf("%s: per-channel requantization (-graph +model):\n%s", op.Label, d)
		}
		if s := scalar(op.Label + "/inv_2^shift"); s != math.Ldexp(1, -op.Requant.Shift) {
			t.Errorf("%s: 2^-shift constant %v, want 2^-%d", op.Label, s, op.Requant.Shift)
		}
		if h := scalar(op.Label + "/half"); h != math.Ldexp(1, op.Requant.Shift-1) {
			t.Errorf("%s: half %v, want 2^%d", op.Label, h, op.Requant.Shift-1)
		}
	}
	if layers != 3 {
		t.Errorf("%d requantized layers, want 3", layers)
	}
}

// opsUsed are the ONNX ops the exporter writes.
var opsUsed = []string{"Cast", "Div", "Round", "Clip", "ConvInteger", "MatMulInteger", "Mul", "Add",
	"Floor", "Max", "Min", "MaxPool", "Flatten", "Reshape", "Identity"}

// What the exporter cannot translate exactly is an error naming the op
// and the reason.
func TestExportErrors(t *testing.T) {
	fmap := func(c, h, w int) *golden.Tensor { return golden.New(c, h, w) }
	filled := func(v int64, shape ...int) *golden.Tensor {
		x := golden.New(shape...)
		for i := range x.Data {
			x.Data[i] = v
		}
		return x
	}
	tests := []struct {
		name  string
		cfg   func(c *npu.Config)
		build func(g *compiler.Graph) *compiler.Value
		want  string
	}{
		{"min pool", nil, func(g *compiler.Graph) *compiler.Value {
			return g.Pool2D(g.Input("x", fmap(2, 4, 4)), compiler.Pool{Kind: golden.PoolMin, KH: 2, KW: 2, Stride: 2})
		}, "pool0: min pooling with zero padding (pads 0, 0) is not exported"},
		{"max pool with edge padding", nil, func(g *compiler.Graph) *compiler.Value {
			return g.Pool2D(g.Input("x", fmap(2, 4, 4)), compiler.Pool{Kind: golden.PoolMax, KH: 3, KW: 3, PadH: 1, PadW: 1, Padding: golden.PadEdge})
		}, "pool0: max pooling with edge padding (pads 1, 1) is not exported: max with ignored or zero padding and average with zero padding are"},
		{"int32 sums plus bias beyond int32", nil, func(g *compiler.Graph) *compiler.Value {
			return g.GEMMInt32(g.Input("a", golden.New(1, 4)), filled(-128, 4, 1), []int64{1<<31 - 1})
		}, "gemm0: channel 0: sums plus bias may reach 2147549183, beyond int32"},
		{"sums beyond int32", nil, func(g *compiler.Graph) *compiler.Value {
			const k = 1<<31/(128*128) + 1
			return g.GEMM(g.Input("a", golden.New(1, k)), filled(-128, k, 1), golden.Requant{})
		}, "gemm0: channel 0: the sums may reach 2147500032, beyond int32"},
		{"value beyond 2^53", nil, func(g *compiler.Graph) *compiler.Value {
			return g.GEMM(g.Input("a", golden.New(1, 4)), filled(100, 4, 1), golden.Requant{Scale: 1 << 40})
		}, "gemm0: channel 0: |sum·scale + bias| may reach 5.629e+16, not below 2^53"},
		{"elem width", func(c *npu.Config) { c.ElemWidth = 16 }, func(g *compiler.Graph) *compiler.Value {
			return g.GEMM(g.Input("a", golden.New(1, 4)), golden.New(4, 1), golden.Requant{})
		}, "elem_width = 16: the exported model holds elements as INT8, so elem_width must be 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := npu.DefaultConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			g := compiler.NewGraph()
			g.Output("y", tt.build(g))
			_, err := Graph(g, cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// With lower.Int32Output the exported net's integer output is INT32 and
// the dequantization multiplies each channel by its own step, the net's.
func TestMnistInt32Structure(t *testing.T) {
	cfg := npu.DefaultConfig()
	net, _ := mnistCalibrated(t, cfg, func(x *onnx.Array) []*onnx.Array { return []*onnx.Array{x} }, lower.Int32Output())
	m, err := Net(net, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := onnx.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := net.Output()
	var outs []string
	for _, v := range got.Graph.Outputs {
		outs = append(outs, fmt.Sprintf("%s %s", v.Name, v.DType))
	}
	if d := cmp.Diff([]string{out + " FLOAT", out + "_int32 INT32"}, outs); d != "" {
		t.Errorf("outputs (-want +got):\n%s", d)
	}
	for _, c := range got.Graph.Initializers {
		if c.Name == out+"/scale" {
			if d := cmp.Diff(net.OutputSteps(), c.Float64); d != "" {
				t.Errorf("dequantization scales (-net +model):\n%s", d)
			}
			return
		}
	}
	t.Errorf("no constant %q", out+"/scale")
}
