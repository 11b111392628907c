package lower

import "slices"

// InputShape is the shape of the float input the net takes ([1,C,H,W],
// [1,C,L], [1,N] or [N]).
func (n *Net) InputShape() []int { return slices.Clone(n.ins[0].dims) }

// InputShapeOf is the shape of the float input named name, nil for no
// such input.
func (n *Net) InputShapeOf(name string) []int {
	in, err := n.inputNamed(name)
	if err != nil {
		return nil
	}
	return slices.Clone(in.dims)
}

// InputScaleOf is the int8 scale of the input named name, 0 for no such
// input.
func (n *Net) InputScaleOf(name string) float64 {
	in, err := n.inputNamed(name)
	if err != nil {
		return 0
	}
	return in.scale
}

// OutputShape is the shape of the float output Dequantize returns (the
// ONNX graph output's).
func (n *Net) OutputShape() []int { return slices.Clone(n.outShape) }
