package compiler

import (
	"fmt"
	"github.com/hwgen/hwgen/isa/machine"
	"strings"

	"github.com/hwgen/hwgen/golden"
)

// This file holds the graph's pooling operation (Pool2D) and its window.

// Pool is a pooling window: max or average (the window sum, then
// Requant: give the scale and shift that divide by KH·KW, see AvgRequant).
// Padding PadIgnore (ONNX MaxPool's padding that never wins) is for max
// and min pooling only.
type Pool struct {
	Kind       golden.PoolKind
	KH, KW     int
	Stride     int // 0 means 1
	PadH, PadW int
	Padding    golden.Padding
	Requant    golden.Requant // the zero value: identity
	// Whole runs the pool as one planar task per channel tile once its
	// input is complete. By default a pool of a conv's result runs in
	// bands of rows, each right after the conv's act that completes it.
	Whole bool
}

// AvgRequant is the requantization that turns a window sum of n elements
// into the rounded average: scale round(2^14/n), shift 14 (the scale fits
// 16 bits for every n ≥ 1).
func AvgRequant(n int) golden.Requant {
	const shift = 14
	return golden.Requant{Scale: int64((1<<shift + n/2) / n), Shift: shift}
}

// Pool2D pools every channel plane of x ([C,H,W] or [1,C,H,W]).
func (g *Graph) Pool2D(x *Value, p Pool) *Value {
	op := fmt.Sprintf("pool%d", g.counts[opPool])
	if !g.check(op, x) {
		return g.bad()
	}
	if p.Stride == 0 {
		p.Stride = 1
	}
	c, h, w, ok := fmapShape(x.shape)
	if !ok {
		return g.fail(op, "input shape %v: want [C,H,W] or [1,C,H,W]", x.shape)
	}
	_ = c
	switch {
	case !poolable(p.Kind):
		return g.fail(op, "kind = %v: want one of %s", p.Kind, strings.Join(golden.PoolKindNames(), ", "))
	case p.KH < 1 || p.KW < 1:
		return g.fail(op, "window %dx%d: kh and kw must be at least 1", p.KH, p.KW)
	case p.Stride < 1:
		return g.fail(op, "stride = %d must be at least 1", p.Stride)
	case p.PadH < 0 || p.PadW < 0:
		return g.fail(op, "padding %d, %d must not be negative", p.PadH, p.PadW)
	case p.KH > h+2*p.PadH:
		return g.fail(op, "window height kh = %d is larger than the padded input height h+2·pad_h = %d", p.KH, h+2*p.PadH)
	case p.KW > w+2*p.PadW:
		return g.fail(op, "window width kw = %d is larger than the padded input width w+2·pad_w = %d", p.KW, w+2*p.PadW)
	case p.Padding < golden.PadZero || p.Padding > golden.PadIgnore:
		return g.fail(op, "padding = %v: want zero, edge or ignore", p.Padding)
	case p.Padding == golden.PadIgnore && p.Kind == golden.PoolAvg:
		return g.fail(op, "padding = ignore: only max and min pooling ignore the padding (an average's divisor would change)")
	case p.Padding == golden.PadIgnore && (p.PadH >= p.KH || p.PadW >= p.KW):
		return g.fail(op, "ignored padding %d, %d must be below the window %dx%d (else a window may hold only padding)", p.PadH, p.PadW, p.KH, p.KW)
	}
	if x.producer == nil {
		x.setPlain()
	}
	if x.trans {
		return g.fail(op, "input is a transposed matrix, not a feature map")
	}
	oh, ow := (h+2*p.PadH-p.KH)/p.Stride+1, (w+2*p.PadW-p.KW)/p.Stride+1
	shape := append([]int(nil), x.shape...)
	shape[len(shape)-2], shape[len(shape)-1] = oh, ow
	out := g.newValue(shape)
	out.formSet, out.cols, out.p, out.f, out.h, out.w = true, x.cols, x.p, oh*ow, oh, ow
	n := g.add(opPool, []*Value{x}, out)
	n.pool, n.q = p, identity(p.Requant)
	return out
}

// poolable reports whether the planar engine pools with kind k.
func poolable(k golden.PoolKind) bool {
	_, err := machine.PoolFn(k)
	return err == nil
}
