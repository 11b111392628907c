package export

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
)

// translator turns compiler ops into ONNX nodes. Feature maps are NCHW
// with batch 1 in ONNX, so a compiler [C,H,W] value is [1,C,H,W] there.
type translator struct {
	b      *builder
	names  map[*compiler.Value]string
	shapes map[*compiler.Value][]int // ONNX shapes
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
	t.names[v], t.shapes[v] = name, onnxShape(v)
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
		default:
			err = fmt.Errorf("%s: %s is not exported (the exporter translates conv2d, gemm, max pool and flatten, what frontend/lower produces)", op.Label, op.Kind)
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
		attrInts("strides", int64(c.Stride), int64(c.Stride)))
	per := len(w.Data) / co
	maxAcc, err := sumBounds(op.Label, co, func(o, i int) int64 { return w.Data[o*per+i] }, per)
	if err != nil {
		return err
	}
	scale, bias := channelParams(op.Requant, op.PerChannel, co)
	y, err := t.requant(op.Label, acc, op.Requant, scale, bias, maxAcc, []int64{int64(co), 1, 1})
	if err != nil {
		return err
	}
	t.names[op.Out], t.shapes[op.Out] = y, onnxShape(op.Out)
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
	scale, bias := channelParams(op.Requant, op.PerChannel, n)
	y, err := t.requant(op.Label, acc, op.Requant, scale, bias, maxAcc, []int64{int64(n)})
	if err != nil {
		return err
	}
	t.names[op.Out], t.shapes[op.Out] = y, onnxShape(op.Out)
	return nil
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

// pool is MaxPool on int8: ONNX pads a max pool with values that never
// win, golden.PadIgnore. Other padding translates only without pads.
func (t *translator) pool(op compiler.Op) error {
	p := op.Pool
	switch {
	case p.Kind != golden.PoolMax:
		return fmt.Errorf("%s: %v pooling is not exported (max only)", op.Label, p.Kind)
	case p.Padding != golden.PadIgnore && (p.PadH > 0 || p.PadW > 0):
		return fmt.Errorf("%s: padding %v with pads %d, %d: ONNX's MaxPool padding never wins (ignore)", op.Label, p.Padding, p.PadH, p.PadW)
	case op.Requant != golden.Identity():
		return fmt.Errorf("%s: a max pool with requantization %+v is not exported (identity only)", op.Label, op.Requant)
	}
	y := t.b.node("MaxPool", op.Label, []string{t.names[op.In[0]]},
		attrInts("kernel_shape", int64(p.KH), int64(p.KW)),
		attrInts("pads", int64(p.PadH), int64(p.PadW), int64(p.PadH), int64(p.PadW)),
		attrInts("strides", int64(p.Stride), int64(p.Stride)))
	t.names[op.Out], t.shapes[op.Out] = y, onnxShape(op.Out)
	return nil
}

// view is a reshape (Flatten of a feature map): the data keep their
// row-major order.
func (t *translator) view(op compiler.Op) error {
	if op.Transposes {
		return fmt.Errorf("%s: a transposing view is not exported", op.Label)
	}
	x := op.In[0]
	from, to := t.shapes[x], onnxShape(op.Out)
	var y string
	if to[0] == from[0] && len(to) == 2 && to[1] == prod(from[1:]) {
		y = t.b.node("Flatten", op.Label+"/flatten", []string{t.names[x]}, attrInt("axis", 1))
	} else {
		y = t.b.node("Reshape", op.Label+"/reshape", []string{t.names[x], t.b.int64s(op.Label+"/shape", to)})
	}
	t.names[op.Out], t.shapes[op.Out] = y, to
	return nil
}

func prod(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}
