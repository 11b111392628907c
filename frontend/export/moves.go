package export

import (
	"fmt"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

// This file translates the ops that move int8 data without computing:
// a concatenation along channels, a channel permutation and the nearest
// upsampling. All copy values, so the export is exact whatever the
// values.

// concat is Concat on axis 1 (the channels of [1,C,H,W]) of the INT8
// parts.
func (t *translator) concat(op compiler.Op) error {
	names := make([]string, len(op.In))
	for i, x := range op.In {
		if s := t.shapes[x]; len(s) != 4 {
			return fmt.Errorf("%s: part %d has shape %v, want [1,C,H,W]", op.Label, i, s)
		}
		if t.types[x] != onnxpb.TensorProto_INT8 {
			return fmt.Errorf("%s: part %d is %s, want INT8", op.Label, i, t.types[x])
		}
		names[i] = t.names[x]
	}
	y := t.b.node("Concat", op.Label+"/concat", names, attrInt("axis", 1))
	t.define(op.Out, y, onnxpb.TensorProto_INT8)
	return nil
}

// permute is Gather on axis 1 with the constant permutation: channel i
// of the result is channel Perm[i] of the input.
func (t *translator) permute(op compiler.Op) error {
	x := op.In[0]
	if s := t.shapes[x]; len(s) != 4 || s[1] != len(op.Perm) {
		return fmt.Errorf("%s: input shape %v and a permutation of %d channels: want [1,C,H,W]", op.Label, s, len(op.Perm))
	}
	y := t.b.node("Gather", op.Label+"/gather", []string{t.names[x], t.b.int64s(op.Label+"/perm", op.Perm)}, attrInt("axis", 1))
	t.define(op.Out, y, t.types[x])
	return nil
}

// upsample is Resize of the INT8 map, mode nearest to the sizes
// [1,C,f·H,f·W]: with coordinate_transformation_mode asymmetric and
// nearest_mode floor, output position o reads input ⌊o·in/out⌋ = ⌊o/f⌋,
// the compiler's upsampling (the scale out/in is exactly f, so no
// rounding of a coordinate can differ).
func (t *translator) upsample(op compiler.Op) error {
	x := op.In[0]
	s := t.shapes[x]
	if len(s) != 4 || op.Factor < 1 {
		return fmt.Errorf("%s: input shape %v, factor %d: want [1,C,H,W] and a factor of at least 1", op.Label, s, op.Factor)
	}
	sizes := []int{s[0], s[1], s[2] * op.Factor, s[3] * op.Factor}
	y := t.b.node("Resize", op.Label+"/resize", []string{t.names[x], "", "", t.b.int64s(op.Label+"/sizes", sizes)},
		attrString("mode", "nearest"), attrString("coordinate_transformation_mode", "asymmetric"),
		attrString("nearest_mode", "floor"))
	t.define(op.Out, y, t.types[x])
	return nil
}
