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

// RawOutput is the name of Net's second output, the graph's integer
// output before dequantization: "<output>_int8", or "<output>_int32" when
// the net's output is int32 (lower.Int32Output).
func RawOutput(net *lower.Net) string {
	if net.Int32Output() {
		return net.Output() + "_int32"
	}
	return net.Output() + "_int8"
}

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
	t := newTranslator("hwgen_int8")
	t.recipShift = cfg.Planar().RecipShift()
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
		t.b.g.Output = append(t.b.g.Output, value(y, t.types[o.v], t.shapes[o.v]))
	}
	return model(t.b.g, "int8 compiler graph exported by hwgen: the NPU's integer arithmetic"), nil
}

// Net exports a quantized model as a float model: the input quantized as
// Net.QuantizeInput does, the int8 graph (as Graph), the output
// dequantized as Net.Dequantize does, each bit for bit. Besides the float
// output (the original output's name) the model has the integer one,
// RawOutput: int8, or int32 (one scale per channel) for a net with
// lower.Int32Output.
func Net(net *lower.Net, cfg npu.Config) (*onnxpb.ModelProto, error) {
	if err := CheckConfig(cfg); err != nil {
		return nil, err
	}
	// The graph's ops do not depend on the input: only its data does,
	// and the exported model takes them as its input.
	zeros := map[string]*onnx.Array{}
	for _, in := range net.Inputs() {
		zeros[in] = onnx.NewArray(net.InputShapeOf(in)...)
	}
	g, err := net.GraphOf(zeros)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	ops, err := g.Ops()
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	t := newTranslator("hwgen_quantized")
	t.recipShift = cfg.Planar().RecipShift()
	b := t.b
	out, raw := net.Output(), RawOutput(net)
	b.names[out], b.names[raw] = true, true
	for _, in := range net.Inputs() {
		b.names[in] = true
		b.g.Input = append(b.g.Input, value(in, onnxpb.TensorProto_FLOAT, net.InputShapeOf(in)))
	}

	// The graph reads the net's input and the net's int8 constants (an
	// average pool's divisor map), which become initializers.
	consts := net.Constants()
	var data []*compiler.Value
	for _, v := range graphInputs(ops) {
		c, ok := consts[v.InputName()]
		if !ok {
			data = append(data, v)
			continue
		}
		t.input(v, b.int8s(v.InputName(), dims64(onnxShape(v)), c.Data))
	}
	if len(data) != len(net.Inputs()) {
		return nil, fmt.Errorf("export: the graph reads %d inputs besides its constants, want %d: %v", len(data), len(net.Inputs()), net.Inputs())
	}
	for _, v := range data {
		in := v.InputName()
		inShape := net.InputShapeOf(in)
		if prod(onnxShape(v)) != prod(inShape) {
			return nil, fmt.Errorf("export: the graph reads %q of shape %v, the net's input of that name has shape %v", in, onnxShape(v), inShape)
		}
		xq := quantizeInput(b, in, net.InputScaleOf(in))
		if s := onnxShape(v); !slices.Equal(s, inShape) { // [1,C,L] read as [1,C,1,L], [N] as [1,N]
			xq = b.node("Reshape", in+"/reshape", []string{xq, b.int64s(in+"/shape", s)})
		}
		t.input(v, xq)
	}
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
	typ := t.types[outs[0].v]
	if (typ == onnxpb.TensorProto_INT32) != net.Int32Output() {
		return nil, fmt.Errorf("export: the graph's output is %s, the net's int32 output is %v", typ, net.Int32Output())
	}
	q := b.exact("Identity", raw, []string{y})
	// Net.Dequantize: one scale, or an int32 output's scale per channel
	// (axis 1, the channel axis of [1,C,H,W] and [1,N]; axis 0 of a
	// MatMul's [N]).
	scales, dims := []float64{net.OutputScale()}, []int64{}
	if steps := net.OutputSteps(); steps != nil && len(outShape) == 1 {
		if outShape[0] != len(steps) {
			return nil, fmt.Errorf("export: %d output scales for an output of shape %v", len(steps), outShape)
		}
		scales, dims = steps, []int64{int64(len(steps))}
	} else if steps != nil {
		if len(outShape) < 2 || outShape[1] != len(steps) {
			return nil, fmt.Errorf("export: %d output scales for an output of shape %v", len(steps), outShape)
		}
		scales, dims = steps, make([]int64, len(outShape)-1)
		for i := range dims {
			dims[i] = 1
		}
		dims[0] = int64(len(steps))
	}
	dequantize(b, q, out, scales, dims)
	b.g.Output = []*onnxpb.ValueInfoProto{
		value(out, onnxpb.TensorProto_FLOAT, outShape),
		value(raw, typ, outShape),
	}
	doc := fmt.Sprintf("%s quantized to int8 by hwgen: input scale %.17g", net.Input(), net.InputScale())
	for _, in := range net.Inputs()[1:] {
		doc += fmt.Sprintf(", input %s scale %.17g", in, net.InputScaleOf(in))
	}
	doc += fmt.Sprintf("; the integer core is the NPU's arithmetic bit for bit; %s is the integer output", raw)
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
func dequantize(b *builder, q, out string, scales []float64, dims []int64) {
	v := b.cast(q, out+"/f64", onnxpb.TensorProto_DOUBLE)
	v = b.node("Mul", out+"/dequantized", []string{v, b.doubles(out+"/scale", dims, scales)})
	b.exact("Cast", out, []string{v}, castTo(onnxpb.TensorProto_FLOAT))
}
