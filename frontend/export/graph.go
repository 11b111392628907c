package export

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/golden"
)

// translator turns compiler ops into ONNX nodes. Feature maps are NCHW
// with batch 1 in ONNX, so a compiler [C,H,W] value is [1,C,H,W] there.
type translator struct {
	b      *builder
	names  map[*compiler.Value]string
	shapes map[*compiler.Value][]int                       // ONNX shapes
	types  map[*compiler.Value]onnxpb.TensorProto_DataType // INT8, or INT32 for int32 results
	// recipShift is the planar engine's reciprocal exponent K: its recip
	// post function computes 2^K / v.
	recipShift int
}

func newTranslator(graph string) *translator {
	return &translator{b: newBuilder(graph), names: map[*compiler.Value]string{},
		shapes: map[*compiler.Value][]int{}, types: map[*compiler.Value]onnxpb.TensorProto_DataType{}}
}

// define records op's output: its ONNX name and element type.
func (t *translator) define(v *compiler.Value, name string, typ onnxpb.TensorProto_DataType) {
	t.names[v], t.shapes[v], t.types[v] = name, onnxShape(v), typ
}

// checkConfig refuses configurations whose element or accumulator is not
// ONNX's int8 and int32.
func CheckConfig(cfg npu.Config) error {
	if cfg.ElemWidth != 8 {
		return fmt.Errorf("export: elem_width = %d: the exported model holds elements as INT8, so elem_width must be 8", cfg.ElemWidth)
	}
	if cfg.AccWidth != 32 {
		return fmt.Errorf("export: acc_width = %d: ConvInteger and MatMulInteger accumulate in INT32, so acc_width must be 32", cfg.AccWidth)
	}
	return nil
}

// onnxShape is v's shape as the exported model holds it.
func onnxShape(v *compiler.Value) []int {
	s := v.Shape()
	if len(s) == 3 {
		return append([]int{1}, s...)
	}
	return s
}

// input binds a graph input to the ONNX value name.
func (t *translator) input(v *compiler.Value, name string) {
	t.define(v, name, onnxpb.TensorProto_INT8)
}

// graphInputs are the graph inputs that ops read, in order of first use.
func graphInputs(ops []compiler.Op) []*compiler.Value {
	var in []*compiler.Value
	for _, op := range ops {
		for _, v := range op.In {
			if v.InputName() != "" && !slices.Contains(in, v) {
				in = append(in, v)
			}
		}
	}
	return in
}

// outputs are the graph's outputs, in program order: the value and the
// name it is read back under.
type output struct {
	v    *compiler.Value
	name string
}

func graphOutputs(ops []compiler.Op) []output {
	var out []output
	for _, op := range ops {
		for _, n := range op.Out.OutputNames() {
			out = append(out, output{op.Out, n})
		}
	}
	return out
}

// ops translates every op; the graph inputs must be bound already.
func (t *translator) ops(ops []compiler.Op) error {
	for _, op := range ops {
		for _, v := range op.In {
			if _, ok := t.names[v]; !ok {
				return fmt.Errorf("export: %s reads a value that is not bound (a graph input the exporter was not given)", op.Label)
			}
		}
		var err error
		switch op.Kind {
		case compiler.OpConv2D:
			err = t.conv(op)
		case compiler.OpGEMM:
			err = t.gemm(op)
		case compiler.OpPool:
			err = t.pool(op)
		case compiler.OpView:
			err = t.view(op)
		case compiler.OpEltwise:
			err = t.eltwise(op)
		case compiler.OpReduce:
			err = t.reduce(op)
		case compiler.OpConcat:
			err = t.concat(op)
		case compiler.OpPermute:
			err = t.permute(op)
		case compiler.OpLookup:
			err = t.lookup(op)
		case compiler.OpTranspose:
			err = t.transpose(op)
		case compiler.OpUpsample:
			err = t.upsample(op)
		default:
			err = fmt.Errorf("%s: %s is not exported (the exporter translates conv2d, gemm, pool, eltwise, reduce, concat, permute, lookup, transpose, upsample and views)", op.Label, op.Kind)
		}
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

// conv is ConvInteger (zero padding, int32 sums) and the post-processor
// per output channel (axis 1 of [1,Cout,OH,OW]).
func (t *translator) conv(op compiler.Op) error {
	x, w := op.In[0], op.Weights
	co, kh, kw := w.Shape[0], w.Shape[2], w.Shape[3]
	c := op.Conv
	acc := t.b.node("ConvInteger", op.Label+"/acc", []string{t.names[x], t.b.int8s(op.Label+"/w", dims64(w.Shape), w.Data)},
		attrInts("kernel_shape", int64(kh), int64(kw)),
		attrInts("pads", int64(c.PadH), int64(c.PadW), int64(c.PadH), int64(c.PadW)),
		attrInts("strides", int64(c.Stride), int64(c.Stride)),
		attrInt("group", int64(max(c.Groups, 1)))) // weights [Cout][Cin/group][KH][KW], as ONNX has them
	per := len(w.Data) / co
	maxAcc, err := sumBounds(op.Label, co, func(o, i int) int64 { return w.Data[o*per+i] }, per)
	if err != nil {
		return err
	}
	return t.sumsOut(op, acc, co, maxAcc, []int64{int64(co), 1, 1})
}

// sumsOut ends a conv or GEMM: the int32 result, or the post-processor
// per channel.
func (t *translator) sumsOut(op compiler.Op, acc string, channels int, maxAcc, chanDims []int64) error {
	if op.Int32 {
		y, err := t.int32Out(op.Label, acc, op.Bias, maxAcc, chanDims)
		if err != nil {
			return err
		}
		t.define(op.Out, y, onnxpb.TensorProto_INT32)
		return nil
	}
	scale, bias := channelParams(op.Requant, op.PerChannel, channels)
	x := t.b.cast(acc, op.Label+"/acc_f64", onnxpb.TensorProto_DOUBLE)
	y, err := t.requant(op.Label, x, op.Requant, scale, bias, maxAcc, chanDims)
	if err != nil {
		return err
	}
	t.define(op.Out, y, onnxpb.TensorProto_INT8)
	return nil
}

// gemm is MatMulInteger (int32 sums) and the post-processor per column
// (the last axis of [M,N]).
func (t *translator) gemm(op compiler.Op) error {
	a, w := op.In[0], op.Weights
	k, n := w.Shape[0], w.Shape[1]
	acc := t.b.node("MatMulInteger", op.Label+"/acc", []string{t.names[a], t.b.int8s(op.Label+"/b", dims64(w.Shape), w.Data)})
	maxAcc, err := sumBounds(op.Label, n, func(o, i int) int64 { return w.Data[i*n+o] }, k)
	if err != nil {
		return err
	}
	return t.sumsOut(op, acc, n, maxAcc, []int64{int64(n)})
}

// sumBounds bounds |Σ x·w| of each of n channels for int8 x (|x| ≤
// 128): 128·Σ|w|. ONNX leaves an int32 accumulator that overflows
// undefined where the NPU wraps, so a bound of 2^31 or more is refused.
func sumBounds(label string, n int, w func(o, i int) int64, per int) ([]int64, error) {
	b := make([]int64, n)
	for o := range b {
		for i := 0; i < per; i++ {
			b[o] += 128 * max(w(o, i), -w(o, i))
		}
		if b[o] > 1<<31-1 {
			return nil, fmt.Errorf("%s: channel %d: the sums may reach %d, beyond int32, where ONNX's accumulation is not defined", label, o, b[o])
		}
	}
	return b, nil
}

// pool is MaxPool on INT8 (ONNX pads a max pool with values that never
// win: golden.PadIgnore; zeros, golden.PadZero, are a Pad before it) or, for an average, the window sums with zero
// padding as a grouped ConvInteger with all-one weights; then the
// post-processor.
func (t *translator) pool(op compiler.Op) error {
	p := op.Pool
	x := op.In[0]
	c := t.shapes[x][1]
	pads := attrInts("pads", int64(p.PadH), int64(p.PadW), int64(p.PadH), int64(p.PadW))
	geometry := []*onnxpb.AttributeProto{attrInts("kernel_shape", int64(p.KH), int64(p.KW)), pads,
		attrInts("strides", int64(p.Stride), int64(p.Stride))}
	var sums string
	bound := int64(128)
	switch {
	case p.Kind == golden.PoolMax && (p.Padding == golden.PadIgnore || p.Padding == golden.PadZero):
		in := t.names[x]
		if p.Padding == golden.PadZero && (p.PadH > 0 || p.PadW > 0) { // zeros that may win: an explicit Pad
			in = t.b.node("Pad", op.Label+"/zeros", []string{in, t.b.int64s(op.Label+"/pads", []int{0, 0, p.PadH, p.PadW, 0, 0, p.PadH, p.PadW})})
			geometry[1] = attrInts("pads", 0, 0, 0, 0)
		}
		y := t.b.node("MaxPool", op.Label+"/max", []string{in}, geometry...)
		if op.Requant == golden.Identity() {
			t.define(op.Out, y, onnxpb.TensorProto_INT8)
			return nil
		}
		sums = t.b.cast(y, op.Label+"/max_f64", onnxpb.TensorProto_DOUBLE)
	case p.Kind == golden.PoolAvg && (p.Padding == golden.PadZero || p.PadH == 0 && p.PadW == 0):
		ones := golden.New(c, 1, p.KH, p.KW)
		for i := range ones.Data {
			ones.Data[i] = 1
		}
		acc := t.b.node("ConvInteger", op.Label+"/sum", []string{t.names[x], t.b.int8s(op.Label+"/ones", dims64(ones.Shape), ones.Data)},
			append(geometry, attrInt("group", int64(c)))...)
		sums = t.b.cast(acc, op.Label+"/sum_f64", onnxpb.TensorProto_DOUBLE)
		bound = 128 * int64(p.KH*p.KW)
	default:
		return fmt.Errorf("%s: %v pooling with %v padding (pads %d, %d) is not exported: max with ignored or zero padding and average with zero padding are", op.Label, p.Kind, p.Padding, p.PadH, p.PadW)
	}
	y, err := t.requant(op.Label, sums, op.Requant, []int64{op.Requant.Scale}, []int64{op.Requant.Bias}, []int64{bound}, []int64{})
	if err != nil {
		return err
	}
	t.define(op.Out, y, onnxpb.TensorProto_INT8)
	return nil
}

// eltwiseOps are the ONNX ops of golden's elementwise functions.
var eltwiseOps = map[golden.EltOp]string{golden.EltAdd: "Add", golden.EltSub: "Sub", golden.EltMul: "Mul",
	golden.EltMax: "Max", golden.EltMin: "Min"}

// eltwise is the function on the exact values (in double: int8 sums and
// products are small integers), then the post-processor.
func (t *translator) eltwise(op compiler.Op) error {
	fn, ok := eltwiseOps[op.Elt]
	if !ok {
		return fmt.Errorf("%s: elementwise function %v is not exported", op.Label, op.Elt)
	}
	a := t.b.cast(t.names[op.In[0]], op.Label+"/a_f64", onnxpb.TensorProto_DOUBLE)
	ys := []int64{-128, 127}
	var b string
	if op.Scalar != nil {
		b = t.b.scalar(op.Label+"/scalar", float64(*op.Scalar))
		ys = []int64{*op.Scalar}
	} else {
		b = t.b.cast(t.names[op.In[1]], op.Label+"/b_f64", onnxpb.TensorProto_DOUBLE)
	}
	if op.Channel { // one value per channel, broadcast over the plane
		b = t.channelVector(op, b)
	}
	// The function is monotonic or bilinear in each operand: its largest
	// magnitude is at the corners of the operands' ranges.
	var bound int64
	for _, x := range []int64{-128, 127} {
		for _, y := range ys {
			v := map[golden.EltOp]int64{golden.EltAdd: x + y, golden.EltSub: x - y, golden.EltMul: x * y,
				golden.EltMax: max(x, y), golden.EltMin: min(x, y)}[op.Elt]
			bound = max(bound, v, -v)
		}
	}
	v := t.b.node(fn, op.Label+"/"+op.Elt.String(), []string{a, b})
	y, err := t.requant(op.Label, v, op.Requant, []int64{op.Requant.Scale}, []int64{op.Requant.Bias}, []int64{bound}, []int64{})
	if err != nil {
		return err
	}
	t.define(op.Out, y, onnxpb.TensorProto_INT8)
	return nil
}

// reduce sums (in INT32) or takes the maximum of every channel plane:
// all axes but the channel's, then the post-processor.
func (t *translator) reduce(op compiler.Op) error {
	x := op.In[0]
	shape := t.shapes[x]
	if len(shape) != 4 && len(shape) != 2 {
		return fmt.Errorf("%s: reduce of a %v value is not exported", op.Label, shape)
	}
	ch := 0 // the channel axis: a matrix's rows, a feature map's C
	if len(shape) == 4 {
		ch = 1
	}
	n := int64(prod(shape) / shape[ch]) // elements per channel
	var axes []int64
	for i := range shape {
		if i != ch {
			axes = append(axes, int64(i))
		}
	}
	if op.Post == golden.PostSqrt {
		return fmt.Errorf("%s: the post function %v of a reduction is not exported", op.Label, op.Post)
	}
	var v string
	bound := int64(128)
	switch op.Reduce {
	case golden.ReduceSum:
		wide := t.b.cast(t.names[x], op.Label+"/i32", onnxpb.TensorProto_INT32)
		s := t.b.node("ReduceSum", op.Label+"/sum", []string{wide, t.b.int64s(op.Label+"/axes", int64sToInts(axes))}, attrInt("keepdims", 0))
		v = t.b.cast(s, op.Label+"/sum_f64", onnxpb.TensorProto_DOUBLE)
		bound = 128 * n
	case golden.ReduceMax:
		m := t.b.node("ReduceMax", op.Label+"/max", []string{t.names[x]}, attrInts("axes", axes...), attrInt("keepdims", 0))
		v = t.b.cast(m, op.Label+"/max_f64", onnxpb.TensorProto_DOUBLE)
	default:
		return fmt.Errorf("%s: reduction %v is not exported", op.Label, op.Reduce)
	}
	if op.Post == golden.PostRecip {
		return t.recip(op, v, bound)
	}
	y, err := t.requant(op.Label, v, op.Requant, []int64{op.Requant.Scale}, []int64{op.Requant.Bias}, []int64{bound}, []int64{})
	if err != nil {
		return err
	}
	t.define(op.Out, y, onnxpb.TensorProto_INT8)
	return nil
}

func int64sToInts(v []int64) []int {
	r := make([]int, len(v))
	for i, x := range v {
		r[i] = int(x)
	}
	return r
}

// view is a reshape (Flatten of a feature map): the data keep their
// row-major order.
func (t *translator) view(op compiler.Op) error {
	x := op.In[0]
	if op.Transposes {
		y := t.b.node("Transpose", op.Label+"/transpose", []string{t.names[x]}, attrInts("perm", 1, 0))
		t.define(op.Out, y, t.types[x])
		return nil
	}
	from, to := t.shapes[x], onnxShape(op.Out)
	var y string
	if to[0] == from[0] && len(to) == 2 && to[1] == prod(from[1:]) {
		y = t.b.node("Flatten", op.Label+"/flatten", []string{t.names[x]}, attrInt("axis", 1))
	} else {
		y = t.b.node("Reshape", op.Label+"/reshape", []string{t.names[x], t.b.int64s(op.Label+"/shape", to)})
	}
	t.define(op.Out, y, t.types[x])
	return nil
}

func prod(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}
