package lower

import (
	"fmt"
	"math"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// This file reads the per-channel affine ops of a CNN, y[c] = a[c]·x[c] +
// b[c]: BatchNormalization (inference), and a Mul, Div, Add or Sub of a
// value by a constant that is one value per channel or a single value
// (DenseNet and Inception v2 follow each BatchNormalization by a Mul and
// an Add of [C,1,1] constants). A chain of them composes into one affine
// (affine.then), which is exact in real numbers; the layer that absorbs
// it applies it to its float parameters before anything is quantized:
// a Conv, Gemm or MatMul scales the weights of output channel c by a[c]
// (per-channel weight quantization then takes the scaled channel's own
// range) and turns its bias into a[c]·bias[c] + b[c]; a chain no such
// layer precedes is a depthwise 1×1 convolution of its own (affineAlone).

// affine is y[c] = a[c]·x + b[c] for each channel c.
type affine struct{ a, b []float64 }

// identity is the affine of channels channels that changes nothing.
func identity(channels int) *affine {
	f := &affine{a: make([]float64, channels), b: make([]float64, channels)}
	for c := range f.a {
		f.a[c] = 1
	}
	return f
}

// then makes f the composition of f and, after it, y = a·x + b:
// a·(fa·x + fb) + b.
func (f *affine) then(a, b []float64) {
	for c := range f.a {
		f.a[c] *= a[c]
		f.b[c] = a[c]*f.b[c] + b[c]
	}
}

// weights are the float weights w with output channel c scaled by a[c]:
// w holds the channels one after the other (a Conv's [M,C,kH,kW]), or
// interleaved as the columns of a [K,N] matrix (channelMinor). w is not
// changed; with every a[c] 1 it is returned as it is (no copy of a large
// layer's weights).
func (f *affine) weights(w []float32, channelMinor bool) []float32 {
	if !slices.ContainsFunc(f.a, func(a float64) bool { return a != 1 }) {
		return w
	}
	out, n := make([]float32, len(w)), len(f.a)
	for i, v := range w {
		c := i / (len(w) / n)
		if channelMinor {
			c = i % n
		}
		out[i] = float32(f.a[c] * float64(v))
	}
	return out
}

// bias is a[c]·bias[c] + b[c], the layer's own bias carried through f.
func (f *affine) bias(bias []float32) []float32 {
	out := make([]float32, len(bias))
	for c, v := range bias {
		out[c] = float32(f.a[c]*float64(v) + f.b[c])
	}
	return out
}

// affineChain follows value through the per-channel affine ops that each
// are the previous value's only user and composes them into f, whose
// channels lie on axis of a value of rank dims; it returns the value the
// chain ends in (value itself when nothing follows).
func (l *lowering) affineChain(value string, f *affine, axis, rank int) (string, error) {
	for {
		u := l.onlyUser(value)
		if u == nil {
			return value, nil
		}
		a, b, ok, err := l.affineStep(u, value, len(f.a), axis, rank)
		if err != nil {
			return "", fmt.Errorf("the %s %q after it: %w", u.OpType, u.Name, err)
		}
		if !ok {
			return value, nil
		}
		f.then(a, b)
		l.done[u], value = true, u.Outputs[0]
	}
}

// affineStep reads n, applied to the computed value in, as y = a·x + b
// per channel (channels of them on axis of rank dims). ok is false when n
// is no such op: another op, or an arithmetic op of two computed values
// (an Add of two feature maps is an eltwise add). A form that is affine in
// ONNX but not per channel, or not inference, is an error.
func (l *lowering) affineStep(n *onnx.Node, in string, channels, axis, rank int) (a, b []float64, ok bool, err error) {
	switch n.OpType {
	case "BatchNormalization":
		if n.Inputs[0] != in {
			return nil, nil, false, nil
		}
		a, b, err = l.batchNorm(n, channels, axis, rank)
		return a, b, err == nil, err
	case "Mul", "Div", "Add", "Sub", "Sum":
	default:
		return nil, nil, false, nil
	}
	i, c := l.constOperand(n, in)
	if c == nil {
		return nil, nil, false, nil
	}
	if out := l.shapes[n.Outputs[0]]; !slices.Equal(out, l.shapes[in]) {
		return nil, nil, false, fmt.Errorf("the constant %q %v broadcasts %v to %v: only a constant that keeps the shape (one value per channel, or one value) is supported", n.Inputs[i], c.Shape, l.shapes[in], out)
	}
	off := rank - len(c.Shape) // numpy: the constant's dims are the last ones
	if l.opset() < 7 && i == 1 && n.Int("broadcast", 0) != 0 && len(c.Data) > 1 {
		if ax, set := n.Attrs["axis"]; set { // before opset 7: B's dims from axis on
			off = int(ax.Int)
			if off < 0 {
				off += rank
			}
		}
	}
	v, err := channelVector(c, channels, axis, rank, off)
	if err != nil {
		return nil, nil, false, fmt.Errorf("the constant %q: %w", n.Inputs[i], err)
	}
	ones, zeros, neg := make([]float64, channels), make([]float64, channels), make([]float64, channels)
	for k := range ones {
		ones[k], neg[k] = 1, -v[k]
	}
	switch {
	case n.OpType == "Mul":
		return v, zeros, true, nil
	case n.OpType == "Div" && i == 0:
		return nil, nil, false, fmt.Errorf("divides the constant %q by the value: not an affine map; supported: a value divided by a constant", n.Inputs[0])
	case n.OpType == "Div":
		inv := make([]float64, channels) // a 0 divisor: calibration met ±Inf before
		for k, d := range v {
			inv[k] = 1 / d
		}
		return inv, zeros, true, nil
	case n.OpType == "Sub" && i == 0: // c − x
		return slices.Repeat([]float64{-1}, channels), v, true, nil
	case n.OpType == "Sub":
		return ones, neg, true, nil
	}
	return ones, v, true, nil // Add, or a Sum of two
}

// constOperand is the FLOAT constant an arithmetic op of two inputs
// applies to the computed value in, and its input index; nil when there
// is none (two computed values, or another arity).
func (l *lowering) constOperand(n *onnx.Node, in string) (int, *onnx.Array) {
	if len(n.Inputs) != 2 || n.Inputs[0] == n.Inputs[1] {
		return 0, nil
	}
	i := 1
	if n.Inputs[1] == in {
		i = 0
	}
	c, ok := l.consts[n.Inputs[i]]
	if !ok {
		return 0, nil
	}
	return i, c
}

// batchNorm reads an inference BatchNormalization as a per-channel
// affine: a = scale/√(var + epsilon), b = B − mean·a. Training mode
// (training_mode 1, or is_test 0, the default, before opset 7) normalizes
// by the batch's own statistics and is refused. Before opset 9, spatial 0
// gives each element of [C,...] its own parameters: taken when they are
// equal within each channel (as for a [1,C] input), else refused.
func (l *lowering) batchNorm(n *onnx.Node, channels, axis, rank int) (a, b []float64, err error) {
	opset := l.opset()
	if n.Int("training_mode", 0) != 0 || opset < 7 && n.Int("is_test", 0) == 0 {
		return nil, nil, fmt.Errorf("training mode (training_mode 1, or is_test 0 before opset 7) normalizes by the batch's statistics; supported: inference (is_test 1 before opset 7)")
	}
	if axis != 1 {
		return nil, nil, fmt.Errorf("channels on axis %d: BatchNormalization normalizes axis 1", axis)
	}
	plane := 1
	if opset < 9 && n.Int("spatial", 1) == 0 {
		for _, d := range l.shapes[n.Inputs[0]][2:] {
			plane *= d
		}
	}
	var p [4][]float32 // scale, B, mean, var: per channel
	for i := range p {
		c, err := l.constant(n, i+1)
		if err != nil {
			return nil, nil, err
		}
		if len(c.Data) != channels*plane {
			return nil, nil, fmt.Errorf("input %q has %d values, want %d", n.Inputs[i+1], len(c.Data), channels*plane)
		}
		p[i] = make([]float32, channels)
		for k := range channels {
			ch := c.Data[k*plane : (k+1)*plane]
			if slices.ContainsFunc(ch, func(v float32) bool { return v != ch[0] }) {
				return nil, nil, fmt.Errorf("spatial 0 with input %q varying within channel %d: the NPU scales per channel; supported: spatial 1, or parameters equal within each channel", n.Inputs[i+1], k)
			}
			p[i][k] = ch[0]
		}
	}
	eps := float64(n.Float("epsilon", 1e-5))
	a, b = make([]float64, channels), make([]float64, channels)
	for k := range channels {
		a[k] = float64(p[0][k]) / math.Sqrt(float64(p[3][k])+eps)
		b[k] = float64(p[1][k]) - float64(p[2][k])*a[k]
		if math.IsNaN(a[k]) || math.IsInf(a[k], 0) || math.IsNaN(b[k]) {
			return nil, nil, fmt.Errorf("channel %d: scale %v/√(var %v + epsilon %v) is not a finite number", k, p[0][k], p[3][k], eps)
		}
	}
	return a, b, nil
}

// channelVector is the constant c as one value per channel of a value of
// rank dims whose channels lie on axis: c's dims, placed from dim off on
// (numpy: off = rank − len(c.Shape)), must all be 1 but the one on axis,
// which may be channels; a single value serves every channel.
func channelVector(c *onnx.Array, channels, axis, rank, off int) ([]float64, error) {
	if off < 0 || off+len(c.Shape) > rank {
		return nil, fmt.Errorf("shape %v does not fit a value of %d dims", c.Shape, rank)
	}
	for i, d := range c.Shape {
		if d != 1 && (i+off != axis || d != channels) {
			return nil, fmt.Errorf("shape %v is not per channel (%d channels on axis %d of %d); supported: one value, or one per channel", c.Shape, channels, axis, rank)
		}
	}
	v := make([]float64, channels)
	for k := range v {
		v[k] = float64(c.Data[min(k, len(c.Data)-1)])
	}
	return v, nil
}

// opset is the graph's default-domain opset (0, a graph built by hand,
// means the newest).
func (l *lowering) opset() int64 {
	if l.g.Opset == 0 {
		return onnx.MaxOpset
	}
	return l.g.Opset
}

// affineAlone lowers a per-channel affine op no Conv, Gemm or MatMul
// absorbed (a BatchNormalization after a Concat or a pool, a Mul, Div,
// Add or Sub of a computed value by a constant), with the affine ops,
// Relu and Clip after it, to a depthwise 1×1 convolution (Groups = C):
// channel c's one weight is a[c] quantized on its own (±127 at the
// scale |a[c]|/127, exact), b[c] is the bias, and the per-channel
// requantization rescales to the output's scale with ReLU and the clamp,
// as for any Conv. An Add of two computed values is an eltwise add
// (residual); the other ops of two computed values are refused.
func (l *lowering) affineAlone(n *onnx.Node) error {
	in := n.Inputs[0]
	if n.OpType != "BatchNormalization" {
		if len(n.Inputs) != 2 {
			return fmt.Errorf("%d inputs, want 2", len(n.Inputs))
		}
		if _, ok := l.consts[in]; ok {
			in = n.Inputs[1]
		}
		if i, c := l.constOperand(n, in); c == nil || n.Inputs[1-i] != in {
			if n.OpType == "Add" || n.OpType == "Sum" {
				return l.residual(n)
			}
			return fmt.Errorf("%s of two computed values %q and %q: supported: a value and a constant (one value per channel, or one value)", n.OpType, n.Inputs[0], n.Inputs[1])
		}
	}
	sx, err := l.value(in)
	if err != nil {
		return err
	}
	shape := l.shapes[in]
	if len(shape) != 4 || shape[0] != 1 {
		return fmt.Errorf("input %q of shape %v: a per-channel affine op is folded into the Conv, Gemm or MatMul it follows, else it needs a feature map [1,C,H,W]", in, shape)
	}
	ch := shape[1]
	f := identity(ch)
	a, b, ok, err := l.affineStep(n, in, ch, 1, 4)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("not a per-channel affine map of %q", in)
	}
	f.then(a, b)
	out, err := l.affineChain(n.Outputs[0], f, 1, 4)
	if err != nil {
		return err
	}
	relu := false
	if r := l.soleUser(out, "Relu"); r != nil {
		l.done[r], out, relu = true, r.Outputs[0], true
	}
	out, clip, err := l.fuseClip(out)
	if err != nil {
		return err
	}
	w := make([]float32, ch)
	for c := range w {
		w[c] = float32(f.a[c])
	}
	q, sw, err := quant.Weights(w, ch)
	if err != nil {
		return fmt.Errorf("scales: %w", err)
	}
	rq, pc, sy, err := l.requant(n, sx, sw, out, f.bias(make([]float32, ch)), relu)
	if err != nil {
		return err
	}
	rq = clip.apply(rq, sy, golden.S(l.cfg.ElemWidth))
	wt := &golden.Tensor{Shape: []int{ch, 1, 1, 1}, Data: q}
	c := compiler.Conv{Groups: ch, Requant: rq, PerChannel: pc}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Conv2D(x, wt, c) })
	return nil
}
