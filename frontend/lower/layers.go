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
	w, err := l.constant(n, 1)
	if err != nil {
		return err
	}
	w = weights2D(w) // a 1-D conv's [M,C/g,k] as [M,C/g,1,k]
	if len(w.Shape) != 4 {
		return fmt.Errorf("input %v and weights %v: want [1,C,H,W] and [M,C/group,kH,kW]", l.shapes[n.Inputs[0]], w.Shape)
	}
	if n, w, err = undilated(n, w, l.oneD(n)); err != nil {
		return err
	}
	in, sx, xs, pad, win, err := l.windowInput(n, w.Shape[2], w.Shape[3])
	if err != nil {
		return err
	}
	co := w.Shape[0]
	groups, err := convGroups(n, xs[1], co, w.Shape[1])
	if err != nil {
		return err
	}
	plan, err := convPlan(pad.merge(win), xs[2], xs[3])
	if err != nil {
		return err
	}
	if w.Shape[2] == 1 && w.Shape[3] == 1 && plan.stride > 1 && plan.padH == 0 && plan.padW == 0 && !plan.cropped() {
		in, plan.stride = l.subsampled(in, plan.stride), 1
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
	out, f, relu, err := l.fuse(n, co, 1, 4)
	if err != nil {
		return err
	}
	bias = f.bias(bias)
	out, clip, err := l.fuseClip(out)
	if err != nil {
		return err
	}
	q, sw, err := quant.Weights(f.weights(w.Data, false), co)
	if err != nil {
		return fmt.Errorf("weights %q: %w", n.Inputs[1], err)
	}
	wt := &golden.Tensor{Shape: w.Shape, Data: q}
	wide, bq, err := l.int32Out(n, sx, sw, out, bias, relu || clip != nil, 1)
	if err != nil {
		return err
	}
	if wide {
		if plan.cropped() {
			return fmt.Errorf("uneven pads %+v with an int32 output: supported: even pads (the crop reads int8)", pad.merge(win))
		}
		c := compiler.Conv{Int32: true, Bias: bq, Groups: groups}
		l.emit(in, out, l.net.OutputScale(), func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return plan.conv(g, x, wt, c) })
		return nil
	}
	rq, pc, sy, err := l.requant(n, sx, sw, out, bias, relu)
	if err != nil {
		return err
	}
	rq = clip.apply(rq, sy, golden.S(l.cfg.ElemWidth))
	c := compiler.Conv{Requant: rq, PerChannel: pc, Groups: groups}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return plan.conv(g, x, wt, c) })
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

// fuse absorbs what follows the layer n defines, each only when it is
// the previous value's one user: the chain of per-channel affine ops (a
// bias Add, BatchNormalization, a Mul, Div, Add or Sub by a constant:
// affineChain), then a Relu. It returns their affine, which the caller
// applies to its float weights and bias before quantizing them, and the
// value the layer now defines. The output has rank dims and channels
// channels on axis.
func (l *lowering) fuse(n *onnx.Node, channels, axis, rank int) (out string, f *affine, relu bool, err error) {
	f = identity(channels)
	if out, err = l.affineChain(n.Outputs[0], f, axis, rank); err != nil {
		return "", nil, false, err
	}
	if r := l.soleUser(out, "Relu"); r != nil {
		l.done[r], out, relu = true, r.Outputs[0], true
	}
	return out, f, relu, nil
}

// soleUser is the node of type op that is value's only user, or nil.
func (l *lowering) soleUser(value, op string) *onnx.Node {
	if u := l.onlyUser(value); u != nil && u.OpType == op {
		return u
	}
	return nil
}

// onlyUser is value's only user when it has one output and value is no
// graph output, else nil.
func (l *lowering) onlyUser(value string) *onnx.Node {
	u := l.uses[value]
	if len(u) != 1 || len(u[0].Outputs) != 1 {
		return nil
	}
	for _, o := range l.g.Outputs {
		if o.Name == value {
			return nil
		}
	}
	return u[0]
}

// addBias adds a layer's own bias, the constant b, to the per-channel
// bias (channelVector: for a Conv's B [M], axis 0 of 1 dim; for Gemm's C
// broadcast to [1,N], axis 1 of 2).
func addBias(bias []float32, b *onnx.Array, axis, rank int) error {
	v, err := channelVector(b, len(bias), axis, rank, rank-len(b.Shape))
	if err != nil {
		return fmt.Errorf("bias %w", err)
	}
	for o := range bias {
		bias[o] += float32(v[o])
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
	bq, err := quant.Bias(bias, sx, sw)
	if err != nil {
		return golden.Requant{}, nil, 0, fmt.Errorf("bias: %w", err)
	}
	scales, shift, worst, folded, err := l.channelMultipliers(m, bq)
	if err != nil {
		return golden.Requant{}, nil, 0, err
	}
	l.net.Layers = append(l.net.Layers, Layer{Node: n.Name, InScale: sx, OutScale: sy, Shift: shift, WorstRelErr: worst})
	return golden.Requant{Shift: shift, Relu: relu, Rounding: l.opt.rounding}, &compiler.ChannelRequant{Scale: scales, Bias: folded}, sy, nil
}

// channelMultipliers approximates the layer's per-channel multipliers m
// (quant.LayerMultipliers) and folds the int bias bq into the
// requantization's bias, bq·scale. A bias that is large against the
// layer's output step (a folded BatchNormalization's B − mean·a after a
// convolution of small sums) can overflow the acc_width bias at the
// largest shift; then the shift is lowered, one bit at a time, which
// halves every scale and folded bias at the cost of one bit of the
// multipliers' precision (the layer's WorstRelErr reports it).
func (l *lowering) channelMultipliers(m []float64, bq []int64) (scales []int64, shift int, worst float64, folded []int64, err error) {
	maxShift := l.cfg.Planar().MaxShift()
	var first error
	for {
		scales, shift, worst, err = quant.LayerMultipliers(m, maxShift, l.cfg.ScaleWidth)
		if err != nil {
			if first != nil {
				return nil, 0, 0, nil, fmt.Errorf("bias: %w", first) // no lower shift keeps every scale
			}
			return nil, 0, 0, nil, fmt.Errorf("multipliers: %w", err)
		}
		folded, err = quant.FoldBias(bq, scales, l.cfg.AccWidth)
		if err == nil {
			return scales, shift, worst, folded, nil
		}
		if first == nil {
			first = err
		}
		if shift == 0 {
			return nil, 0, 0, nil, fmt.Errorf("bias: %w", first)
		}
		maxShift = shift - 1
	}
}
