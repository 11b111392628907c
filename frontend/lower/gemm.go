package lower

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// gemm lowers Gemm of the data input A [1,K] (transA 0) by a constant B
// [K,N] (transB 0) or [N,K] (transB 1) [+ Add] [+ Relu] [+ Clip] to
// GEMMPerChannel like MatMul: alpha is folded into the weights before they
// are quantized, beta·C into the per-channel bias (C broadcast to [1,N]:
// [N], [1,N], [1] or a scalar).
func (l *lowering) gemm(n *onnx.Node) error {
	if ta := n.Int("transA", 0); ta != 0 {
		return fmt.Errorf("transA %d: only 0 is supported (the data input is A [1,K])", ta)
	}
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	b, err := l.constant(n, 1)
	if err != nil {
		return err
	}
	if len(b.Shape) != 2 {
		return fmt.Errorf("B has shape %v, want a matrix", b.Shape)
	}
	k, nc := b.Shape[0], b.Shape[1]
	w := b.Data
	if tb := n.Int("transB", 0); tb != 0 {
		k, nc = nc, k
		w = transpose(w, nc, k)
	}
	alpha, beta := n.Float("alpha", 1), n.Float("beta", 1)
	scaled := make([]float32, len(w))
	for i, v := range w {
		scaled[i] = alpha * v
	}
	bias := make([]float32, nc)
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		c, err := l.constant(n, 2)
		if err != nil {
			return err
		}
		bc := &onnx.Array{Shape: c.Shape, Data: make([]float32, len(c.Data))}
		for i, v := range c.Data {
			bc.Data[i] = beta * v
		}
		if err := addBias(bias, bc, 1, 2); err != nil {
			return fmt.Errorf("C: %w", err)
		}
	}
	return l.dense(n, in, sx, &onnx.Array{Shape: []int{k, nc}, Data: scaled}, bias)
}

// dense lowers a layer y = x·w (+ bias) for the data value in [1,K] and
// the float weights w [K,N] [+ Add] [+ Relu] [+ Clip] to GEMMPerChannel,
// one channel per output column. bias holds what the layer adds itself.
func (l *lowering) dense(n *onnx.Node, in string, sx float64, w *onnx.Array, bias []float32) error {
	xs := l.shapes[in]
	k, nc := w.Shape[0], w.Shape[1]
	if len(xs) != 2 || xs[0] != 1 || xs[1] != k {
		return fmt.Errorf("input %v and weights %v: want [1,K] and [K,N]", xs, w.Shape)
	}
	out, f, relu, err := l.fuse(n, nc, 1, 2)
	if err != nil {
		return err
	}
	bias = f.bias(bias)
	out, clip, err := l.fuseClip(out)
	if err != nil {
		return err
	}
	// quant.Weights wants the output channel first: quantize wᵀ.
	q, sw, err := quant.Weights(transpose(f.weights(w.Data, true), k, nc), nc)
	if err != nil {
		return fmt.Errorf("weights %q: %w", n.Inputs[1], err)
	}
	bt := &golden.Tensor{Shape: []int{k, nc}, Data: transpose(q, nc, k)}
	wide, bq, err := l.int32Out(n, sx, sw, out, bias, relu || clip != nil, 1)
	if err != nil {
		return err
	}
	if wide {
		l.emit(in, out, l.net.OutputScale(), func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.GEMMInt32(x, bt, bq) })
		l.matrices[out] = true
		return nil
	}
	rq, pc, sy, err := l.requant(n, sx, sw, out, bias, relu)
	if err != nil {
		return err
	}
	rq = clip.apply(rq, sy, golden.S(l.cfg.ElemWidth))
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.GEMMPerChannel(x, bt, pc, rq) })
	l.matrices[out] = true
	return nil
}

// clipRange is a Clip's real bounds (±Inf when absent); nil means no clip.
type clipRange struct{ lo, hi float32 }

// fuseClip absorbs a Clip that is out's only user into the layer that
// defines out, and returns the value the layer now defines.
func (l *lowering) fuseClip(out string) (string, *clipRange, error) {
	c := l.soleUser(out, "Clip")
	if c == nil {
		return out, nil, nil
	}
	r, err := l.clipBounds(c)
	if err != nil {
		return "", nil, fmt.Errorf("the Clip %q after it: %w", c.Name, err)
	}
	l.done[c] = true
	return c.Outputs[0], r, nil
}

// clipBounds reads a Clip's bounds, attributes or constant inputs.
func (l *lowering) clipBounds(c *onnx.Node) (*clipRange, error) {
	lo, hi, err := onnx.ClipBounds(c, func(i int) (*onnx.Array, error) {
		a, ok := l.consts[c.Inputs[i]]
		if !ok {
			return nil, fmt.Errorf("bound %q depends on the data; supported: constant bounds (attributes, initializers or folded constants)", c.Inputs[i])
		}
		return a, nil
	})
	if err != nil {
		return nil, err
	}
	return &clipRange{lo, hi}, nil
}

// apply adds the clip to the post-processor's clamp, in units of the
// output's scale sy: Lo = round(lo/sy), Hi = round(hi/sy) (ties up, like
// the requantizer), limited to the element range; since rounding is
// monotonic, clamp(round(v/sy), Lo, Hi) = round(clamp(v, lo, hi)/sy). An
// infinite bound leaves that side to the saturation; lo > hi gives hi
// everywhere, as ONNX says.
func (c *clipRange) apply(q golden.Requant, sy float64, elem golden.Int) golden.Requant {
	if c == nil || (math.IsInf(float64(c.lo), -1) && math.IsInf(float64(c.hi), 1)) {
		return q
	}
	bound := func(v float32) int64 {
		u := math.Floor(float64(v)/sy + 0.5)
		return int64(max(min(u, float64(elem.Max())), float64(elem.Min())))
	}
	q.Clamp, q.Lo, q.Hi = true, bound(c.lo), bound(c.hi)
	q.Lo = min(q.Lo, q.Hi)
	return q
}
