package lower

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/quant"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers PRelu, y = x for x ≥ 0, slope·x below, of a
// [1,C,H,W] feature map with a constant slope. One slope for all is a
// lookup table (like LeakyRelu). One slope per channel ([C,1,1] or
// [1,C,1,1], or C values before opset 7) splits the input by sign,
// exactly:
//
//	pos  max(x, 0): a requantization with ReLU, rescaled to units sm
//	neg  min(x, 0): an eltwise min with the scalar 0 (exact int8)
//	ns   slope[c]·neg in units sm: a depthwise 1×1 Conv2D (one group per
//	     channel) with the weight sign(slope[c]) and the per-channel
//	     multiplier |slope[c]|·sx/sm (one shared shift, scales of
//	     scale_width bits: quant.LayerMultipliers)
//	y    Eltwise add pos + ns, rescaled from sm to the output's scale
//
// sm = sx·max(1, max|slope|), so neither part saturates: pos is exact
// when sm = sx, ns within half a step of sm (and the multiplier's
// relative error), y within half an output step of their sum.

// prelu lowers PRelu of a computed value by a constant slope.
func (l *lowering) prelu(n *onnx.Node) error {
	if len(n.Inputs) != 2 {
		return fmt.Errorf("%d inputs, want 2 (x, slope)", len(n.Inputs))
	}
	in, sx, err := l.input(n)
	if err != nil {
		return err
	}
	slope, err := l.constant(n, 1)
	if err != nil {
		return fmt.Errorf("slope: %w; supported: a constant slope", err)
	}
	if len(slope.Data) == 1 {
		a := float64(slope.Data[0])
		return l.lookupOf(n, in, sx, func(v float64) float64 {
			if v < 0 {
				return a * v
			}
			return v
		})
	}
	shape := l.shapes[in]
	if len(shape) != 4 || shape[0] != 1 {
		return fmt.Errorf("input shape %v with a slope of %v: a slope per channel is supported for a [1,C,H,W] input", shape, slope.Shape)
	}
	c := shape[1]
	perChannel := len(slope.Data) == c && (l.g.Opset < 7 || len(slope.Shape) >= 3 && slope.Shape[len(slope.Shape)-3] == c)
	if !perChannel {
		return fmt.Errorf("slope shape %v of a %v input: supported: one value, or one per channel ([C,1,1], [1,C,1,1]; C values before opset 7)", slope.Shape, shape)
	}
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	big := 1.0
	for _, v := range slope.Data {
		big = max(big, math.Abs(float64(v)))
	}
	sm := sx * big
	posQ, err := l.rescale(n.Name+" positive part", sx, sm, 1)
	if err != nil {
		return err
	}
	posQ.Relu = true
	m := make([]float64, c)
	w := golden.New(c, 1, 1, 1)
	for o, v := range slope.Data {
		m[o] = math.Abs(float64(v)) * sx / sm
		switch {
		case v > 0:
			w.Data[o] = 1
		case v < 0:
			w.Data[o] = -1
		default:
			m[o] = 1 // weight 0: any multiplier
		}
	}
	scales, shift, worst, err := quant.LayerMultipliers(m, l.cfg.Planar().MaxShift(), l.cfg.ScaleWidth)
	if err != nil {
		return fmt.Errorf("slope multipliers: %w", err)
	}
	l.net.Layers = append(l.net.Layers, Layer{Node: n.Name + " negative part", InScale: sx, OutScale: sm, Shift: shift, WorstRelErr: worst})
	conv := compiler.Conv{Groups: c, Requant: golden.Requant{Shift: shift, Rounding: l.opt.rounding},
		PerChannel: &compiler.ChannelRequant{Scale: scales, Bias: make([]int64, c)}}
	addQ, err := l.rescale(n.Name, sm, sy, 1)
	if err != nil {
		return err
	}
	l.emit(in, out, sy, func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
		pos := g.Requant(x, posQ)
		neg := g.EltwiseScalar(golden.EltMin, x, 0, golden.Requant{})
		return g.Eltwise(golden.EltAdd, pos, g.Conv2D(neg, w, conv), addQ)
	})
	return nil
}
