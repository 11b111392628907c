package lower

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers LRN, y = x·(bias + alpha/size·Σ x²)^−beta over the
// channel window c − ⌊(size−1)/2⌋ .. c + ⌈(size−1)/2⌉, onto the planar
// and neural engines, exactly:
//
//	sq  Eltwise mul x·x, rescaled by 1/127 to units ssq = 127·sx²: the
//	    largest square the calibrated int8 range holds, (127·sx)², is
//	    127 (128² saturates to it)
//	s   the window sums: a 1×1 Conv2D of sq with banded 0/1 weights
//	    (w[o][i] = 1 inside o's window), its int32 sum (at most
//	    127·size) rescaled to 255 steps and offset by −128 (the
//	    requantization's bias), so the lookup's whole int8 range covers
//	    0 .. 127·size·ssq: r = round(acc·M) − 128, M ≈ 255/(127·size),
//	    no saturation whatever the data
//	p   Lookup: entry r is (bias + alpha/size·(r + 128)·ssum)^−beta in
//	    units sp = bias^−beta/127 (the largest value, at a zero sum, is
//	    127), ssum = ssq/M for the M the post-processor realizes
//	y   Eltwise mul x·p, rescaled to the output's calibrated scale
//
// Against float, the squares' int8 rounding (half a step of ssq each)
// and the sums' (half a step of ssum) move the denominator by at most
// alpha/size·(size/2·ssq + ssum/2), p's own rounding is half a step of
// sp (relative 1/254 at the largest p) and y's half an output step; the
// LRN tests bound the whole at 1.5 output steps plus what the input's own
// int8 error carries.

// lrn lowers LRN (size required; alpha, beta, bias with the spec's
// defaults) of a [1,C,H,W] feature map.
func (l *lowering) lrn(n *onnx.Node) error {
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	shape := l.shapes[in]
	if len(shape) != 4 || shape[0] != 1 {
		return fmt.Errorf("input shape %v, want [1,C,H,W]", shape)
	}
	size := n.Int("size", 0)
	alpha, beta, bias := float64(n.Float("alpha", 1e-4)), float64(n.Float("beta", 0.75)), float64(n.Float("bias", 1))
	switch {
	case size < 1:
		return fmt.Errorf("size %d: want a positive size (the attribute is required)", size)
	case !(bias > 0) || math.IsInf(bias, 0):
		return fmt.Errorf("bias %g: supported: a positive finite bias (the table's largest value is bias^−beta)", bias)
	case !(alpha >= 0) || math.IsInf(alpha, 0) || math.IsNaN(beta) || math.IsInf(beta, 0):
		return fmt.Errorf("alpha %g, beta %g: supported: a finite alpha ≥ 0 and a finite beta", alpha, beta)
	}
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	elem := golden.S(l.cfg.ElemWidth)
	ssq := float64(elem.Max()) * sx * sx
	sqQ, err := l.rescale(n.Name+" square", sx*sx, ssq, 1)
	if err != nil {
		return err
	}
	f, _, err := quant.Multiplier(255/(127*float64(size)), l.cfg.Planar().MaxShift(), l.cfg.ScaleWidth)
	if err != nil {
		return fmt.Errorf("the window sums' multiplier: %w", err)
	}
	sumQ := golden.Requant{Scale: f.Scale, Shift: f.Shift, Bias: -128 << f.Shift, Rounding: l.opt.rounding}
	ssum := ssq * math.Ldexp(1, f.Shift) / float64(f.Scale)
	sp := math.Pow(bias, -beta) / 127
	table, err := golden.TableOf(func(v float64) float64 {
		return math.Pow(bias+alpha/float64(size)*(v+128*ssum), -beta)
	}, ssum, sp, elem)
	if err != nil {
		return fmt.Errorf("the table of (bias + alpha/size·s)^−beta: %w", err)
	}
	mulQ, err := l.rescale(n.Name, sx*sp, sy, 1)
	if err != nil {
		return err
	}
	c := shape[1]
	below, above := int((size-1)/2), int(size-1-(size-1)/2)
	w := golden.New(c, c, 1, 1)
	for o := range c {
		for i := max(0, o-below); i <= min(c-1, o+above); i++ {
			w.Data[o*c+i] = 1
		}
	}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
		sq := g.Eltwise(golden.EltMul, x, x, sqQ)
		s := g.Conv2D(sq, w, compiler.Conv{Requant: sumQ})
		p := g.Lookup(s, table, golden.Requant{})
		return g.Eltwise(golden.EltMul, x, p, mulQ)
	})
	return nil
}
