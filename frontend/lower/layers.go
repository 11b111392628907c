package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// conv lowers Conv [+ Add] [+ Relu] [+ Clip] to Conv2D with per-channel
// requantization.
func (l *lowering) conv(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	w, err := l.constant(n, 1)
	if err != nil {
		return err
	}
	xs := l.shapes[in]
	if len(w.Shape) != 4 || len(xs) != 4 {
		return fmt.Errorf("input %v and weights %v: want [1,C,H,W] and [M,C/group,kH,kW]", xs, w.Shape)
	}
	co := w.Shape[0]
	groups, err := convGroups(n, xs[1], co, w.Shape[1])
	if err != nil {
		return err
	}
	win, err := onnx.WindowOf(n, xs[2], xs[3], w.Shape[2], w.Shape[3])
	if err != nil {
		return err
	}
	stride, padH, padW, err := symmetric(win)
	if err != nil {
		return err
	}
	bias := make([]float32, co)
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		b, err := l.constant(n, 2)
		if err != nil {
			return err
		}
		if err := addBias(bias, b, 0, 1); err != nil { // Conv's own B is [M]
			return err
		}
	}
	out, relu, err := l.fuse(n, bias, 1, 4)
	if err != nil {
		return err
	}
	out, clip, err := l.fuseClip(out)
	if err != nil {
		return err
	}
	q, sw, err := quant.Weights(w.Data, co)
	if err != nil {
		return fmt.Errorf("weights %q: %w", n.Inputs[1], err)
	}
	wt := &golden.Tensor{Shape: w.Shape, Data: q}
	wide, bq, err := l.int32Out(n, sx, sw, out, bias, relu || clip != nil, 1)
	if err != nil {
		return err
	}
	if wide {
		c := compiler.Conv{Stride: stride, PadH: padH, PadW: padW, Int32: true, Bias: bq, Groups: groups}
		l.emit(in, out, l.net.OutputScale(), func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Conv2D(x, wt, c) })
		return nil
	}
	rq, pc, sy, err := l.requant(n, sx, sw, out, bias, relu)
	if err != nil {
		return err
	}
	rq = clip.apply(rq, sy, golden.S(l.cfg.ElemWidth))
	c := compiler.Conv{Stride: stride, PadH: padH, PadW: padW, Requant: rq, PerChannel: pc, Groups: groups}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Conv2D(x, wt, c) })
	return nil
}

// convGroups reads a Conv's group for c input and m output channels and
// weights of wc input channels each: a grouped conv (compiler.Conv.Groups)
// when group divides both and wc = c/group; group = c is the depthwise
// conv. Weights stay quantized per output channel.
func convGroups(n *onnx.Node, c, m, wc int) (int, error) {
	g := n.Int("group", 1)
	switch {
	case g < 1:
		return 0, fmt.Errorf("group %d: supported: a positive group that divides the %d input and %d output channels", g, c, m)
	case int64(c)%g != 0 || int64(m)%g != 0:
		return 0, fmt.Errorf("group %d: supported: a group that divides the %d input and %d output channels", g, c, m)
	case int64(wc)*g != int64(c):
		return 0, fmt.Errorf("group %d: the weights have %d input channels, want %d/%d = %d", g, wc, c, g, int64(c)/g)
	}
	return int(g), nil
}

// matMul lowers MatMul by a constant [K,N] [+ Add] [+ Relu] [+ Clip] to
// GEMMPerChannel, one channel per output column (dense).
func (l *lowering) matMul(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	b, err := l.constant(n, 1)
	if err != nil {
		return err
	}
	if len(b.Shape) != 2 {
		return fmt.Errorf("input %v and weights %v: want [1,K] and [K,N]", l.shapes[in], b.Shape)
	}
	return l.dense(n, in, sx, b, make([]float32, b.Shape[1]))
}

// transpose is the transpose of the rows×cols matrix v.
func transpose[T any](v []T, rows, cols int) []T {
	t := make([]T, len(v))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			t[c*rows+r] = v[r*cols+c]
		}
	}
	return t
}

// constant is input i of n, which must be a float constant.
func (l *lowering) constant(n *onnx.Node, i int) (*onnx.Array, error) {
	if i >= len(n.Inputs) {
		return nil, fmt.Errorf("input %d missing", i)
	}
	c, ok := l.consts[n.Inputs[i]]
	if !ok {
		return nil, fmt.Errorf("input %q is not a FLOAT constant", n.Inputs[i])
	}
	return c, nil
}

// fuse absorbs the Add of a constant bias and then the Relu that may
// follow n's output, each only when it is the value's one user (an Add of
// two feature maps is lowered on its own, residual). It adds
// the bias into bias and returns the value the layer now defines. The
// output has rank dims and its channels on axis.
func (l *lowering) fuse(n *onnx.Node, bias []float32, axis, rank int) (out string, relu bool, err error) {
	out = n.Outputs[0]
	if a := l.soleUser(out, "Add"); a != nil && l.addsConst(a, out) {
		b := l.consts[a.Inputs[0]]
		if a.Inputs[0] == out {
			b = l.consts[a.Inputs[1]]
		}
		if err := addBias(bias, b, axis, rank); err != nil {
			return "", false, fmt.Errorf("the Add %q after it: %w", a.Name, err)
		}
		l.done[a], out = true, a.Outputs[0]
	}
	if r := l.soleUser(out, "Relu"); r != nil {
		l.done[r], out, relu = true, r.Outputs[0], true
	}
	return out, relu, nil
}

// soleUser is the node of type op that is value's only user, or nil.
func (l *lowering) soleUser(value, op string) *onnx.Node {
	u := l.uses[value]
	if len(u) != 1 || u[0].OpType != op || len(u[0].Outputs) != 1 {
		return nil
	}
	if op == "Add" && len(u[0].Inputs) != 2 {
		return nil
	}
	for _, o := range l.g.Outputs {
		if o.Name == value {
			return nil
		}
	}
	return u[0]
}

// addBias adds the constant b to the per-channel bias when b broadcasts
// along the channel axis only (for a Conv output [1,M,H,W]: [M,1,1], [M]
// is not, as numpy aligns the last dims; for a MatMul's [1,N]: [N] or
// [1,N]); a single value is added to every channel.
func addBias(bias []float32, b *onnx.Array, axis, rank int) error {
	if len(b.Shape) > rank {
		return fmt.Errorf("bias shape %v has more than %d dims", b.Shape, rank)
	}
	off := rank - len(b.Shape)
	for i, d := range b.Shape {
		if d != 1 && (i+off != axis || d != len(bias)) {
			return fmt.Errorf("bias shape %v is not per channel (%d channels on axis %d of %d)", b.Shape, len(bias), axis, rank)
		}
	}
	for o := range bias {
		if len(b.Data) == 1 {
			bias[o] += b.Data[0]
		} else {
			bias[o] += b.Data[o]
		}
	}
	return nil
}

// int32Out decides whether the layer writing out (its channels on axis)
// is the int32 output (Int32Output asked for, out is the graph output,
// no Relu); if so it records the output's per-channel steps sx·sw[o] and
// returns the bias in accumulator units (nil when it is all zero).
func (l *lowering) int32Out(n *onnx.Node, sx float64, sw []float64, out string, bias []float32, relu bool, axis int) (bool, []int64, error) {
	if !l.opt.int32Output || relu || out != l.net.output {
		return false, nil, nil
	}
	bq, err := quant.Bias(bias, sx, sw)
	if err != nil {
		return true, nil, fmt.Errorf("bias: %w", err)
	}
	if !slices.ContainsFunc(bq, func(b int64) bool { return b != 0 }) {
		bq = nil
	}
	l.net.outSteps, l.net.outAxis = make([]float64, len(sw)), axis
	for o := range sw {
		l.net.outSteps[o] = sx * sw[o]
	}
	l.net.Layers = append(l.net.Layers, Layer{Node: n.Name, InScale: sx, Int32: true})
	return true, bq, nil
}

// requant computes the layer's post-processing: per channel o, the int32
// sum in units of sx·sw[o] becomes int8 in units of the output's scale,
// the bias folded in, ReLU applied after the shift. It also returns the
// output's scale.
func (l *lowering) requant(n *onnx.Node, sx float64, sw []float64, out string, bias []float32, relu bool) (golden.Requant, *compiler.ChannelRequant, float64, error) {
	sy, err := l.scaleOf(out)
	if err != nil {
		return golden.Requant{}, nil, 0, err
	}
	m := make([]float64, len(sw))
	for o := range sw {
		m[o] = sx * sw[o] / sy
	}
	scales, shift, worst, err := quant.LayerMultipliers(m, l.cfg.Planar().MaxShift(), l.cfg.ScaleWidth)
	if err != nil {
		return golden.Requant{}, nil, 0, fmt.Errorf("multipliers: %w", err)
	}
	bq, err := quant.Bias(bias, sx, sw)
	if err != nil {
		return golden.Requant{}, nil, 0, fmt.Errorf("bias: %w", err)
	}
	folded, err := quant.FoldBias(bq, scales, l.cfg.AccWidth)
	if err != nil {
		return golden.Requant{}, nil, 0, fmt.Errorf("bias: %w", err)
	}
	l.net.Layers = append(l.net.Layers, Layer{Node: n.Name, InScale: sx, OutScale: sy, Shift: shift, WorstRelErr: worst})
	return golden.Requant{Shift: shift, Relu: relu, Rounding: l.opt.rounding}, &compiler.ChannelRequant{Scale: scales, Bias: folded}, sy, nil
}
