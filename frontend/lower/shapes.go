package lower

import "slices"

// InputShape is the shape of the float input the net takes ([1,C,H,W],
// [1,C,L], [1,N] or [N]).
func (n *Net) InputShape() []int { return slices.Clone(n.inDims) }

// OutputShape is the shape of the float output Dequantize returns (the
// ONNX graph output's).
func (n *Net) OutputShape() []int { return slices.Clone(n.outShape) }
