package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// rescale is the post-processor that takes a sum of div int8 values of
// scale sx to int8 in units of sy: M = sx/(sy·div) ≈ Scale/2^Shift
// (quant.Multiplier), so the planar engine computes
//
//	out = floor((sum·Scale + 2^(Shift−1)) / 2^Shift)     (round half up)
//
// (or half to even, WithRounding) saturated to the element range, an approximation of round(sum·M) whose
// multiplier is off by at most the relative error recorded in the layer's
// report. div is the window of an average (1 for a plain rescale).
func (l *lowering) rescale(name string, sx, sy float64, div int) (golden.Requant, error) {
	f, rel, err := quant.Multiplier(sx/(sy*float64(div)), l.cfg.Planar().MaxShift(), l.cfg.ScaleWidth)
	if err != nil {
		return golden.Requant{}, fmt.Errorf("rescaling %.4g to %.4g over %d values: %w", sx, sy, div, err)
	}
	l.net.Layers = append(l.net.Layers, Layer{Node: name, InScale: sx, OutScale: sy, Shift: f.Shift, WorstRelErr: rel})
	return golden.Requant{Scale: f.Scale, Shift: f.Shift, Rounding: l.opt.rounding}, nil
}

// avgPool lowers AveragePool to the planar engine's average pool: the
// window sum (zero padding), then rescale by 1/(KH·KW) and the change of
// scale. ONNX divides by KH·KW with count_include_pad 1; with 0 (the
// default) by the elements inside the plane, which differs where a
// window reaches into the padding: there an eltwise multiply by a
// constant map corrects the divisor (pool_pad.go). A dilated one is a
// depthwise conv (pool_dilated.go).
func (l *lowering) avgPool(n *onnx.Node) error {
	if u, kh, kw, dh, dw, ok, err := dilatedWindow(n, l.oneD(n)); err != nil || ok {
		if err != nil {
			return err
		}
		return l.dilatedAvgPool(n, u, kh, kw, dh, dw)
	}
	in, sx, win, _, plan, err := l.poolWindow(n)
	if err != nil {
		return err
	}
	shape := l.shapes[n.Inputs[0]] // the padded plane: a folded Pad's zeros count
	counts, oh, ow := windowCounts(win, shape[2], shape[3])
	return l.average(n, in, sx, win.KH*win.KW, counts, oh, ow, shape[1], func(g *compiler.Graph, x *compiler.Value, q golden.Requant) *compiler.Value {
		return plan.pool(g, x, compiler.Pool{Kind: golden.PoolAvg, KH: win.KH, KW: win.KW, Padding: golden.PadZero, Requant: q})
	})
}

// average emits the AveragePool n of in (scale sx) as sum, the sums of
// its windows of k elements (counts of them inside the plane, [oh][ow],
// c channels) requantized by q, which rescales by 1/k; with
// count_include_pad 0, where a count is below k, then an eltwise
// multiply by the constant map of the exact factors k/count.
func (l *lowering) average(n *onnx.Node, in string, sx float64, k int, counts []int, oh, ow, c int,
	sum func(g *compiler.Graph, x *compiler.Value, q golden.Requant) *compiler.Value) error {
	uniform := n.Int("count_include_pad", 0) != 0 || !slices.ContainsFunc(counts, func(c int) bool { return c != k })
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	q, err := l.rescale(n.Name, sx, sy, k)
	if err != nil {
		return err
	}
	if uniform {
		l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return sum(g, x, q) })
		return nil
	}
	m, d, err := divisorMap(counts, k)
	if err != nil {
		return fmt.Errorf("count_include_pad 0: %w", err)
	}
	qm, err := l.rescale(n.Name+" divisors", sy, sy, d)
	if err != nil {
		return err
	}
	mt := golden.New(c, oh, ow)
	for ch := 0; ch < c; ch++ {
		copy(mt.Data[ch*oh*ow:], m)
	}
	name := out + "/divisors"
	l.constantInput(name, mt)
	l.net.steps = append(l.net.steps, step{in: in, in2: name, out: out,
		apply2: func(g *compiler.Graph, x, mv *compiler.Value) *compiler.Value {
			return g.Eltwise(golden.EltMul, sum(g, x, q), mv, qm)
		}})
	l.scales[out] = sy
	return nil
}

// globalPool lowers GlobalAveragePool (max false) or GlobalMaxPool
// [1,C,H,W] → [1,C,1,1]: a pool of the whole plane when it fits the
// planar engine's window (max_kernel), which keeps the [C,1,1] feature
// map a Conv can read, else a reduce sum or max per channel giving [C] (a
// Flatten, Reshape, Squeeze, Gemm or MatMul may follow). An NPU built
// without average pooling (planar_pool_avg false) but with reductions
// takes the reduce for an average too, so the usual classifier head
// (GlobalAveragePool, Flatten, Gemm) does not need the pooling feature.
// Either way the result is rescaled to the output's scale, a sum also by
// 1/(H·W) (a maximum is one of the int8 values: no division): the same
// arithmetic, so the same bits.
func (l *lowering) globalPool(n *onnx.Node, max bool) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	shape := l.shapes[in]
	if len(shape) != 4 {
		return fmt.Errorf("input shape %v, want [1,C,H,W]", shape)
	}
	h, w := shape[2], shape[3]
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	kind, reduce, div, what := golden.PoolAvg, golden.ReduceSum, h*w, "it is summed"
	if max {
		kind, reduce, div, what = golden.PoolMax, golden.ReduceMax, 1, "its maximum is taken"
	}
	q, err := l.rescale(n.Name, sx, sy, div)
	if err != nil {
		return err
	}
	fits := h <= l.cfg.MaxKernel && w <= l.cfg.MaxKernel
	why := fmt.Sprintf("the plane %dx%d is wider than max_kernel = %d, so %s per channel into a vector", h, w, l.cfg.MaxKernel, what)
	if fits && !max && !l.cfg.PlanarPoolAvg && l.cfg.PlanarReduce {
		fits, why = false, "the NPU has no average pooling (planar_pool_avg = false), so it is summed per channel into a vector"
	}
	if fits {
		p := compiler.Pool{Kind: kind, KH: h, KW: w, Padding: golden.PadZero, Requant: q}
		l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Pool2D(x, p) })
		return nil
	}
	if err := l.checkUsers(out, why, vectorFollowers); err != nil {
		return err
	}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Reduce(x, reduce, q) })
	return nil
}
