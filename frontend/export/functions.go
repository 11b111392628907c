package export

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/golden"
)

// lookup is the planar lookup table (compiler.Graph.Lookup): the
// requantization of the input (an add of 0: skipped when it is the
// identity), then Cast to INT32, Add 128 (the table's entry k is the
// value −128 + k) and Gather on the table as an INT8 constant. Every
// step is exact: the index is an integer in 0..255 and Gather copies an
// entry.
func (t *translator) lookup(op compiler.Op) error {
	x := t.names[op.In[0]]
	if op.Requant != golden.Identity() {
		v := t.b.cast(x, op.Label+"/x_f64", onnxpb.TensorProto_DOUBLE)
		y, err := t.requant(op.Label+"/r", v, op.Requant, []int64{op.Requant.Scale}, []int64{op.Requant.Bias}, []int64{128}, []int64{})
		if err != nil {
			return err
		}
		x = y
	}
	wide := t.b.cast(x, op.Label+"/i32", onnxpb.TensorProto_INT32)
	idx := t.b.node("Add", op.Label+"/index", []string{wide, t.b.int32s(op.Label+"/offset", []int64{}, []int64{128})})
	table := t.b.int8s(op.Label+"/table", []int64{int64(len(op.Table))}, op.Table)
	y := t.b.node("Gather", op.Label+"/gather", []string{table, idx}, attrInt("axis", 0))
	t.define(op.Out, y, onnxpb.TensorProto_INT8)
	return nil
}

// transpose is the on-chip transpose of a plain matrix: ONNX Transpose.
func (t *translator) transpose(op compiler.Op) error {
	y := t.b.node("Transpose", op.Label+"/transpose", []string{t.names[op.In[0]]}, attrInts("perm", 1, 0))
	t.define(op.Out, y, t.types[op.In[0]])
	return nil
}

// channelVector reshapes b, the per-channel operand [C] of an eltwise
// (compiler.Graph.EltwiseChannel), so that it broadcasts along the
// channel axis of the other operand: [1,C,1,1] for a feature map, [C,1]
// for a matrix whose rows are the channels.
func (t *translator) channelVector(op compiler.Op, b string) string {
	shape := t.shapes[op.In[0]]
	c := t.shapes[op.In[1]][0]
	dims := []int{c, 1}
	if len(shape) == 4 {
		dims = []int{1, c, 1, 1}
	}
	return t.b.node("Reshape", op.Label+"/per_channel", []string{b, t.b.int64s(op.Label+"/channel_shape", dims)})
}

// recip ends a reduction with the reciprocal post function
// (golden.Requant.ApplyPost): v = sum·Scale + Bias, u = trunc(2^K / v)
// (2^(K+1) − 1 for v = 0), then u shifted by Shift + K − RecipBits with
// the requantization's rounding, ReLU, clamp and saturation. In double:
// v is an exact integer below 2^53 (checked); the quotient 2^K / v of
// integers with |v| ≥ 1 is either an integer (exact) or at least 1/|v|
// from one, while its rounding error is at most 2^(K−53)/|v|, less than
// that for K < 53, so Floor of the absolute value and Sign give the
// truncation exactly; Where takes the planar engine's value for v = 0.
func (t *translator) recip(op compiler.Op, sum string, bound int64) error {
	q, k := op.Requant, t.recipShift
	if k >= 53 {
		return fmt.Errorf("%s: the reciprocal 2^%d / v is not exact in a double (K must be below 53)", op.Label, k)
	}
	if b := float64(bound)*math.Abs(float64(q.Scale)) + math.Abs(float64(q.Bias)); b >= math.Ldexp(1, k) {
		return fmt.Errorf("%s: |sum·scale + bias| may reach %.4g, not below 2^%d, the planar engine's reciprocal range", op.Label, b, k)
	}
	b := t.b
	v := b.node("Mul", op.Label+"/scaled", []string{sum, b.scalar(op.Label+"/scale", float64(q.Scale))})
	v = b.node("Add", op.Label+"/biased", []string{v, b.scalar(op.Label+"/bias", float64(q.Bias))})
	quo := b.node("Div", op.Label+"/quotient", []string{b.scalar(op.Label+"/2^K", math.Ldexp(1, k)), v})
	tr := b.node("Floor", op.Label+"/floor", []string{b.node("Abs", op.Label+"/abs", []string{quo})})
	tr = b.node("Mul", op.Label+"/trunc", []string{tr, b.node("Sign", op.Label+"/sign", []string{quo})})
	zero := b.node("Equal", op.Label+"/is_zero", []string{v, b.scalar(op.Label+"/zero_f64", 0)})
	u := b.node("Where", op.Label+"/recip", []string{zero, b.scalar(op.Label+"/recip_of_0", math.Ldexp(1, k+1)-1), tr})
	post := golden.Requant{Scale: 1, Shift: q.Shift + k - op.RecipBits, Rounding: q.Rounding, Relu: q.Relu, Clamp: q.Clamp, Lo: q.Lo, Hi: q.Hi}
	y, err := t.requant(op.Label, u, post, []int64{1}, []int64{0}, []int64{1 << (k + 1)}, []int64{})
	if err != nil {
		return err
	}
	t.define(op.Out, y, onnxpb.TensorProto_INT8)
	return nil
}
