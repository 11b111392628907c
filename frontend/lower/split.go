package lower

import (
	"fmt"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// split lowers a Split of a [1,C,H,W] (or [1,C,L]) map along its
// channels (axis 1) into its parts, whatever form gives the sizes (the
// split attribute or input, equal parts, opset 18's num_outputs): each
// part's channel count is its calibrated shape's. A part is a 1×1 Conv2D
// of 0/1 weights that selects its channel range, with the identity
// requantization: every output is one int8 value times 1, exact, in the
// input's scale (the graph has no channel-range view).
func (l *lowering) split(n *onnx.Node) error {
	in, s, err := l.input(n)
	if err != nil {
		return err
	}
	shape, dims := l.shapes[in], l.first[in].Shape
	if len(shape) != 4 || shape[0] != 1 {
		return fmt.Errorf("input shape %v: supported: a map [1,C,H,W] or [1,C,L] split along its channels", dims)
	}
	axis := n.Int("axis", 0)
	if axis < 0 {
		axis += int64(len(dims))
	}
	if axis != 1 {
		return fmt.Errorf("axis %d of a %v value: supported: 1 (the channels)", n.Int("axis", 0), dims)
	}
	c := shape[1]
	off := 0
	for _, out := range n.Outputs {
		if out == "" {
			return fmt.Errorf("an omitted output: supported: every part named")
		}
		k := l.shapes[out][1]
		wt := golden.New(k, c, 1, 1)
		for j := range k {
			wt.Data[j*c+off+j] = 1
		}
		off += k
		l.emit(in, out, s, func(g *compiler.Graph, x *compiler.Value) *compiler.Value {
			return g.Conv2D(x, wt, compiler.Conv{})
		})
	}
	return nil
}
