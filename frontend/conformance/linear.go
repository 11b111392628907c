package conformance

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// operands are the integer operands of a conv or matrix product after
// the zero points are taken off, with the per-output-channel bias and
// requantization (nil for an exact integer result).
type operands struct {
	x, w  *golden.Tensor
	bias  []int64
	q     *qlinear // QLinear ops: the output's requantization
	out   *golden.Tensor
	note  string
	elems [][]int64 // every value that must fit an element
}

// qlinear is a QLinear op's output scaling: y = sat(round(acc·m[o]) + zp).
type qlinear struct {
	m      []float64
	zp     int64
	lo, hi int64
}

// linearOperands reads the operands of a conv (channel axis 0 of w) or a
// matrix product (wAxis −1: the last axis of w, B's columns) for the integer and
// QLinear ops and their float forms.
func linearOperands(c *Case, wAxis int) (*operands, error) {
	n := c.Model.Graph.Nodes[0]
	var xi, wi, xz, wz, bi int // input positions
	var xs, ws, ys, yz int
	switch n.OpType {
	case "ConvInteger", "MatMulInteger":
		xi, wi, xz, wz, bi, xs = 0, 1, 2, 3, -1, -1
	case "QLinearConv", "QLinearMatMul":
		xi, xs, xz, wi, ws, wz, ys, yz, bi = 0, 1, 2, 3, 4, 5, 6, 7, -1
		if n.OpType == "QLinearConv" {
			bi = 8
		}
	default: // Conv, MatMul, Gemm: float
		xi, wi, xz, wz, bi, xs = 0, 1, -1, -1, 2, -1
	}
	x, err := tensor(c.input(xi), "input "+n.Inputs[xi])
	if err != nil {
		return nil, err
	}
	w, err := tensor(c.input(wi), "input "+n.Inputs[wi])
	if err != nil {
		return nil, err
	}
	if n.OpType == "Gemm" {
		if x, w, err = gemmForm(n, x, w); err != nil {
			return nil, err
		}
	}
	if wAxis < 0 {
		wAxis = len(w.Shape) - 1 // a matrix product's columns
	}
	if wAxis < 0 || len(w.Shape) <= wAxis {
		return nil, unsupportedf("weights of shape %v", w.Shape)
	}
	ch := w.Shape[wAxis]
	o := &operands{x: x, w: w, note: "exact integer arithmetic"}
	if xz >= 0 {
		zx, err := zeroPoint(c.input(xz), 1, "x zero point")
		if err != nil {
			return nil, err
		}
		zw, err := zeroPoint(c.input(wz), ch, "w zero point")
		if err != nil {
			return nil, err
		}
		for i := range x.Data {
			x.Data[i] -= zx[0]
		}
		inner := 1
		for _, d := range w.Shape[wAxis+1:] {
			inner *= d
		}
		for i := range w.Data {
			w.Data[i] -= zw[(i/inner)%ch]
		}
		o.note = "zero points subtracted on the host"
	}
	o.bias = make([]int64, ch)
	if bi >= 0 && c.input(bi) != nil {
		b, err := ints(c.input(bi), "bias "+n.Inputs[bi])
		if err != nil {
			return nil, err
		}
		if len(b) == 1 {
			for i := range o.bias {
				o.bias[i] = b[0]
			}
		} else if len(b) == ch {
			copy(o.bias, b)
		} else {
			return nil, unsupportedf("bias of %d values for %d output channels", len(b), ch)
		}
	}
	if xs >= 0 {
		if o.q, err = qlinearOf(c, n, xs, ws, ys, yz, ch); err != nil {
			return nil, err
		}
		o.note += "; requantized per channel by an integer multiplier and shift, half to even"
	}
	if o.out, err = tensor(c.Outputs[0], "expected output"); err != nil {
		return nil, err
	}
	o.elems = [][]int64{x.Data, w.Data}
	if o.q != nil {
		o.elems = append(o.elems, []int64{o.q.lo, o.q.hi}) // the result leaves as elements
	} else {
		o.note += "; the int32 accumulators plus bias leave as int32"
	}
	return o, nil
}

// qlinearOf reads a QLinear op's scales and output zero point.
func qlinearOf(c *Case, n *onnx.Node, xs, ws, ys, yz, ch int) (*qlinear, error) {
	sx, err := scales(c.input(xs), 1, "x scale")
	if err != nil {
		return nil, err
	}
	sw, err := scales(c.input(ws), ch, "w scale")
	if err != nil {
		return nil, err
	}
	sy, err := scales(c.input(ys), 1, "y scale")
	if err != nil {
		return nil, err
	}
	zy, err := zeroPoint(c.input(yz), 1, "y zero point")
	if err != nil {
		return nil, err
	}
	lo, hi, err := outRange(c.Outputs[0].DType)
	if err != nil {
		return nil, err
	}
	q := &qlinear{m: make([]float64, ch), zp: zy[0], lo: lo, hi: hi}
	for o := range q.m {
		// float32 products, as the scales are float32 and runtimes
		// compute the multiplier in float.
		q.m[o] = float64(float32(sx[0]) * float32(sw[o]) / float32(sy[0]))
	}
	return q, nil
}

// gemmForm applies Gemm's transA/transB (the host lays A out; B is a
// constant) and refuses alpha and beta other than 1.
func gemmForm(n *onnx.Node, a, b *golden.Tensor) (*golden.Tensor, *golden.Tensor, error) {
	if al, be := n.Float("alpha", 1), n.Float("beta", 1); al != 1 || be != 1 {
		return nil, nil, unsupportedf("alpha %g, beta %g: only 1 (a scaled result is not an integer)", al, be)
	}
	if n.Int("transA", 0) != 0 {
		a = transposed(a)
	}
	if n.Int("transB", 0) != 0 {
		b = transposed(b)
	}
	return a, b, nil
}

func transposed(t *golden.Tensor) *golden.Tensor {
	r, c := t.Shape[0], t.Shape[1]
	out := &golden.Tensor{Shape: []int{c, r}, Data: make([]int64, len(t.Data))}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out.Data[j*r+i] = t.Data[i*c+j]
		}
	}
	return out
}

// requant is the per-channel post-processing of o on cfg: the bias
// (and the QLinear scaling and zero point) folded into per-channel scale
// and bias.
func (o *operands) requant(cfg npu.Config) (golden.Requant, *compiler.ChannelRequant, error) {
	ch := len(o.bias)
	pc := &compiler.ChannelRequant{Scale: make([]int64, ch), Bias: make([]int64, ch)}
	if o.q == nil {
		for i := range pc.Scale {
			pc.Scale[i], pc.Bias[i] = 1, o.bias[i]
		}
		return golden.Requant{Scale: 1}, pc, nil
	}
	sc, shift, _, err := quant.LayerMultipliers(o.q.m, cfg.Planar().MaxShift(), cfg.ScaleWidth)
	if err != nil {
		return golden.Requant{}, nil, unsupportedf("multipliers: %v", err)
	}
	for i := range pc.Scale {
		pc.Scale[i] = sc[i]
		pc.Bias[i] = o.bias[i]*sc[i] + o.q.zp<<shift
	}
	q := golden.Requant{Shift: shift, Rounding: golden.HalfEven, Clamp: true, Lo: o.q.lo, Hi: o.q.hi}
	return q, pc, nil
}

// configFor is base with the narrowest element width (at least base's)
// that holds o's values.
func (o *operands) configFor(base npu.Config) (npu.Config, error) {
	cfg := base
	cfg.ElemWidth = max(base.ElemWidth, bitsFor(o.elems...))
	if 2*cfg.ElemWidth > cfg.AccWidth {
		return cfg, unsupportedf("values need %d-bit elements; acc_width %d allows %d", cfg.ElemWidth, cfg.AccWidth, cfg.AccWidth/2)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, unsupportedf("%v", err)
	}
	return cfg, nil
}

func convTest(c *Case, base npu.Config) (*job, *Result, error) {
	n := c.Model.Graph.Nodes[0]
	if g := n.Int("group", 1); g != 1 {
		return nil, nil, unsupportedf("group %d: only 1", g)
	}
	o, err := linearOperands(c, 0)
	if err != nil {
		return nil, nil, err
	}
	if len(o.x.Shape) != 4 || o.x.Shape[0] != 1 || len(o.w.Shape) != 4 {
		return nil, nil, unsupportedf("input %v, weights %v: want [1,C,H,W] and [M,C,kH,kW] (2-D, batch 1)", o.x.Shape, o.w.Shape)
	}
	win, err := onnx.WindowOf(n, o.x.Shape[2], o.x.Shape[3], o.w.Shape[2], o.w.Shape[3])
	if err != nil {
		return nil, nil, unsupportedf("%v", err)
	}
	if win.SH != win.SW || win.Top != win.Bottom || win.Left != win.Right {
		return nil, nil, unsupportedf("strides %d,%d and pads %d,%d,%d,%d: the NPU pads symmetrically with one stride", win.SH, win.SW, win.Top, win.Left, win.Bottom, win.Right)
	}
	cfg, err := o.configFor(base)
	if err != nil {
		return nil, nil, err
	}
	q, pc, err := o.requant(cfg)
	if err != nil {
		return nil, nil, err
	}
	g := compiler.NewGraph()
	x := g.Input("x", o.x)
	conv := compiler.Conv{Stride: win.SH, PadH: win.Top, PadW: win.Left, Requant: q, PerChannel: pc}
	if o.q == nil {
		conv = compiler.Conv{Stride: win.SH, PadH: win.Top, PadW: win.Left, Int32: true, Bias: o.bias}
	}
	g.Output("y", g.Conv2D(x, o.w, conv))
	return &job{g: g, cfg: cfg, want: o.out, note: o.note}, nil, nil
}

func gemmTest(c *Case, base npu.Config) (*job, *Result, error) {
	o, err := linearOperands(c, -1)
	if err != nil {
		return nil, nil, err
	}
	as, bs := o.x.Shape, o.w.Shape
	switch {
	case len(as) == 2 && len(bs) == 2:
	case len(as) == 3 && (len(bs) == 2 || len(bs) == 3 && bs[0] == as[0]):
	default:
		return nil, nil, unsupportedf("operands %v and %v: matrices, or a batch of them ([B,M,K] by [B,K,N] or [K,N])", as, bs)
	}
	cfg, err := o.configFor(base)
	if err != nil {
		return nil, nil, err
	}
	q, pc, err := o.requant(cfg)
	if err != nil {
		return nil, nil, err
	}
	// A batch is one GEMM per matrix, each an output of its own.
	g := compiler.NewGraph()
	batch, note := 1, o.note
	if len(as) == 3 {
		batch, note = as[0], fmt.Sprintf("%s; a batch of %d GEMMs", o.note, as[0])
	}
	var outs []string
	for i := 0; i < batch; i++ {
		a, b := o.x, o.w
		if len(as) == 3 {
			a = slice3(o.x, i)
		}
		if len(bs) == 3 {
			b = slice3(o.w, i)
		}
		name := fmt.Sprintf("y%d", i)
		in := g.Input(fmt.Sprintf("a%d", i), a)
		if o.q == nil {
			g.Output(name, g.GEMMInt32(in, b, o.bias))
		} else {
			g.Output(name, g.GEMMPerChannel(in, b, pc, q))
		}
		outs = append(outs, name)
	}
	return &job{g: g, cfg: cfg, want: o.out, note: note, outputs: outs}, nil, nil
}

// slice3 is matrix i of a [B,R,C] tensor.
func slice3(t *golden.Tensor, i int) *golden.Tensor {
	r, c := t.Shape[1], t.Shape[2]
	return &golden.Tensor{Shape: []int{r, c}, Data: t.Data[i*r*c : (i+1)*r*c]}
}
