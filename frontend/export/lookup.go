package export

import (
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
