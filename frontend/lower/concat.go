package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// This file lowers the data movements along channels: Concat of feature
// maps (compiler.Graph.Concat) and ShuffleNet's channel shuffle, a
// Reshape–Transpose–Reshape (compiler.Graph.ChannelShuffle).

// channelAxis reports (nil) whether the Concat c joins feature maps
// [1,C,H,W] along their channels, the one concatenation the NPU has.
func (l *lowering) channelAxis(c *onnx.Node) error {
	shape := l.shapes[c.Outputs[0]]
	axis := c.Int("axis", 1) // required from opset 4; before, 1 by default
	if _, ok := c.Attrs["axis"]; !ok && l.g.Opset >= 4 {
		return fmt.Errorf("no axis attribute: supported: axis 1 (the channels)")
	}
	switch {
	case len(shape) != 4 || shape[0] != 1:
		return fmt.Errorf("output shape %v: only feature maps [1,C,H,W] are concatenated", shape)
	case axis != 1 && axis != -3:
		return fmt.Errorf("axis %d: only 1 (the channels of [1,C,H,W]) is supported", axis)
	}
	return nil
}

// concat lowers Concat along channels to compiler.Graph.Concat. Every
// part is brought to the output's scale first: a part whose only user is
// the concat is written in that scale by its producer already (scaleOf),
// any other is rescaled by a Requant (a part that other ops read too
// keeps its own scale for them). The concat then only places the parts
// into their channel ranges; the compiler has their producers write there
// directly where it can.
func (l *lowering) concat(n *onnx.Node) error {
	if err := l.channelAxis(n); err != nil {
		return err
	}
	out := n.Outputs[0]
	sy, err := l.scaleOf(out)
	if err != nil {
		return err
	}
	qs := make([]*golden.Requant, len(n.Inputs))
	for i, in := range n.Inputs {
		if _, ok := l.consts[in]; ok {
			return fmt.Errorf("input %q is a constant: only computed feature maps are concatenated", in)
		}
		sx, err := l.value(in)
		if err != nil {
			return err
		}
		if sx != sy {
			q, err := l.rescale(n.Name+" part "+in, sx, sy, 1)
			if err != nil {
				return err
			}
			qs[i] = &q
		}
	}
	l.net.steps = append(l.net.steps, step{ins: slices.Clone(n.Inputs), out: out,
		applyN: func(g *compiler.Graph, xs []*compiler.Value) *compiler.Value {
			parts := make([]*compiler.Value, len(xs))
			for i, x := range xs {
				parts[i] = x
				if qs[i] != nil {
					parts[i] = g.Requant(x, *qs[i])
				}
			}
			return g.Concat(parts...)
		}})
	l.scales[out] = sy
	return nil
}

// shuffle lowers ShuffleNet's channel shuffle, starting at its first
// Reshape r: [1,C,H,W] → [1,g,C/g,H,W], then (each the only user of the
// one before) a Transpose with perm [0,2,1,3,4] and a Reshape back to
// [1,C,H,W], to compiler.Graph.ChannelShuffle (channel i of the result
// is channel (i mod g)·C/g + ⌊i/g⌋). The scale stays. ok is false when r
// does not start that pattern.
func (l *lowering) shuffle(r *onnx.Node, in string, s float64) (bool, error) {
	from, mid := l.shapes[in], l.shapes[r.Outputs[0]]
	if len(from) != 4 || from[0] != 1 || len(mid) != 5 || mid[0] != 1 || mid[1]*mid[2] != from[1] ||
		mid[3] != from[2] || mid[4] != from[3] {
		return false, nil
	}
	t := l.soleUser(r.Outputs[0], "Transpose")
	if t == nil {
		return false, nil
	}
	if perm := t.Ints("perm", nil); !slices.Equal(perm, []int64{0, 2, 1, 3, 4}) {
		return false, fmt.Errorf("the Transpose %q after it has perm %v: only the channel shuffle's [0 2 1 3 4] is supported", t.Name, perm)
	}
	back := l.soleUser(t.Outputs[0], "Reshape")
	if back == nil || !slices.Equal(l.shapes[back.Outputs[0]], from) {
		return false, fmt.Errorf("the Transpose %q after it is not followed by a Reshape back to %v: only the channel shuffle Reshape–Transpose–Reshape is supported", t.Name, from)
	}
	groups := mid[1]
	l.done[t], l.done[back] = true, true
	l.emit(in, back.Outputs[0], s, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.ChannelShuffle(x, groups) })
	return true, nil
}
