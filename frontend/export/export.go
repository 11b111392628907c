package export

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/frontend/quant"
)

// Opset is the default-domain opset the exported models import (see the
// package doc for why 13).
const Opset = 13

// irVersion is the IR version that came with opset 13 (ONNX 1.8), so
// that every runtime that knows the opset reads the file.
const irVersion = 7

// Int8Suffix names the extra output of Net: the int8 output before
// dequantization, "<output>" + Int8Suffix.
const Int8Suffix = "_int8"

func model(g *onnxpb.GraphProto, doc string) *onnxpb.ModelProto {
	return &onnxpb.ModelProto{IrVersion: proto.Int64(irVersion), ProducerName: proto.String("hwgen"),
		DocString:   proto.String(doc),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(Opset)}},
		Graph:       g}
}

// Graph exports an int8 compiler graph as it stands: every graph input
// an INT8 input of its shape (a [C,H,W] feature map as [1,C,H,W]),
// every output an INT8 output, the results those of g.Reference bit for
// bit. The graph's input data are not part of the model.
func Graph(g *compiler.Graph, cfg npu.Config) (*onnxpb.ModelProto, error) {
	if err := CheckConfig(cfg); err != nil {
		return nil, err
	}
	ops, err := g.Ops()
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	t := &translator{b: newBuilder("hwgen_int8"), names: map[*compiler.Value]string{}, shapes: map[*compiler.Value][]int{}}
	for _, v := range graphInputs(ops) {
		t.b.names[v.InputName()] = true
		t.input(v, v.InputName())
		t.b.g.Input = append(t.b.g.Input, value(v.InputName(), onnxpb.TensorProto_INT8, onnxShape(v)))
	}
	outs := graphOutputs(ops)
	for _, o := range outs {
		t.b.names[o.name] = true // before any node can take the name
	}
	if err := t.ops(ops); err != nil {
		return nil, err
	}
	for _, o := range outs {
		y := t.b.exact("Identity", o.name, []string{t.names[o.v]})
		t.b.g.Output = append(t.b.g.Output, value(y, onnxpb.TensorProto_INT8, t.shapes[o.v]))
	}
	return model(t.b.g, "int8 compiler graph exported by hwgen: the NPU's integer arithmetic"), nil
}

// Net exports a quantized model as a float model: the input quantized as
// Net.QuantizeInput does, the int8 graph (as Graph), the output
// dequantized as Net.Dequantize does, each bit for bit. Besides the float
// output (the original output's name) the model has the int8 one,
// "<output>_int8".
func Net(net *lower.Net, cfg npu.Config) (*onnxpb.ModelProto, error) {
	if err := CheckConfig(cfg); err != nil {
		return nil, err
	}
	// The graph's ops do not depend on the input: only its data does,
	// and the exported model takes them as its input.
	inShape := net.InputShape()
	g, err := net.Graph(onnx.NewArray(inShape...))
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	ops, err := g.Ops()
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	t := &translator{b: newBuilder("hwgen_quantized"), names: map[*compiler.Value]string{}, shapes: map[*compiler.Value][]int{}}
	b := t.b
	in, out := net.Input(), net.Output()
	b.names[in], b.names[out], b.names[out+Int8Suffix] = true, true, true
	b.g.Input = []*onnxpb.ValueInfoProto{value(in, onnxpb.TensorProto_FLOAT, inShape)}

	ins := graphInputs(ops)
	if len(ins) != 1 || ins[0].InputName() != in || !slices.Equal(onnxShape(ins[0]), inShape) {
		return nil, fmt.Errorf("export: the graph of %s reads %d inputs, want %q of shape %v", in, len(ins), in, inShape)
	}
	t.input(ins[0], quantizeInput(b, in, net.InputScale()))
	if err := t.ops(ops); err != nil {
		return nil, err
	}
	outs := graphOutputs(ops)
	if len(outs) != 1 || outs[0].name != out {
		return nil, fmt.Errorf("export: the graph has %d outputs, want %q", len(outs), out)
	}
	y, shape := t.names[outs[0].v], t.shapes[outs[0].v]
	outShape := net.OutputShape()
	if !slices.Equal(shape, outShape) {
		if prod(shape) != prod(outShape) {
			return nil, fmt.Errorf("export: the graph's output has shape %v, the model's %v", shape, outShape)
		}
		y = b.node("Reshape", out+"/reshape", []string{y, b.int64s(out+"/shape", outShape)})
	}
	q := b.exact("Identity", out+Int8Suffix, []string{y})
	dequantize(b, q, out, net.OutputScale())
	b.g.Output = []*onnxpb.ValueInfoProto{
		value(out, onnxpb.TensorProto_FLOAT, outShape),
		value(out+Int8Suffix, onnxpb.TensorProto_INT8, outShape),
	}
	doc := fmt.Sprintf("%s quantized to int8 by hwgen: input scale %.17g, output scale %.17g; the integer core is the NPU's arithmetic bit for bit", in, net.InputScale(), net.OutputScale())
	return model(b.g, doc), nil
}

// quantizeInput appends Net.QuantizeInput: round half to even of
// float64(x)/scale, clamped to ±quant.QMax, as INT8. The division is in
// double precision, as in Go; ONNX's QuantizeLinear divides a float32
// by a float32 scale, which rounds differently near the ties. The
// quotient is exact in double or not, the same in both (IEEE division
// is correctly rounded), Round is half to even (math.RoundToEven) and
// Clip compares exactly.
func quantizeInput(b *builder, x string, scale float64) string {
	v := b.cast(x, x+"/f64", onnxpb.TensorProto_DOUBLE)
	v = b.node("Div", x+"/scaled", []string{v, b.scalar(x+"/scale", scale)})
	v = b.node("Round", x+"/rounded", []string{v})
	v = b.node("Clip", x+"/clamped", []string{v, b.scalar(x+"/qmin", -quant.QMax), b.scalar(x+"/qmax", quant.QMax)})
	return b.cast(v, x+"/int8", onnxpb.TensorProto_INT8)
}

// dequantize appends Net.Dequantize: float32(float64(q)·scale), the
// product in double precision, one rounding to float at the end (ONNX's
// DequantizeLinear multiplies in float32, one more rounding).
func dequantize(b *builder, q, out string, scale float64) {
	v := b.cast(q, out+"/f64", onnxpb.TensorProto_DOUBLE)
	v = b.node("Mul", out+"/dequantized", []string{v, b.scalar(out+"/scale", scale)})
	b.exact("Cast", out, []string{v}, castTo(onnxpb.TensorProto_FLOAT))
}
