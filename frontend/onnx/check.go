package onnx

import (
	"fmt"
	"strings"
)

// SupportedOps are the default-domain ops hwgen means to map onto the NPU,
// float and quantized: every op of OpTable, the one list Check is
// normally given.
var SupportedOps = OpNames(func(Op) bool { return true })

// Check returns an error for the first node whose op is not in ops (ops of
// other domains are named domain.Op) or, being an op of OpTable, is not
// read in the model's opset (Op.Opsets), or else for the first graph input
// or output of an element type outside SupportedDTypes. Each error is one
// line naming the node or value and what is supported.
func (m *Model) Check(ops []string) error {
	known := map[string]bool{}
	for _, op := range ops {
		known[op] = true
	}
	for i, n := range m.Graph.Nodes {
		if !known[n.qualifiedOp()] {
			return fmt.Errorf("onnx: %s: op %s not supported; supported ops: %s", n.label(i), n.qualifiedOp(), strings.Join(ops, ", "))
		}
		if o, ok := LookupOp(n.qualifiedOp()); ok {
			if lo, hi := o.Opsets(); m.Opset < lo || m.Opset > hi {
				return fmt.Errorf("onnx: %s: op %s in default-domain opset %d not supported; supported: opsets %d to %d", n.label(i), o.Name, m.Opset, lo, hi)
			}
		}
	}
	for _, vs := range []struct {
		role   string
		values []Value
	}{{"graph input", m.Graph.Inputs}, {"graph output", m.Graph.Outputs}} {
		for _, v := range vs.values {
			if !supportedDType(v.DType) {
				return dtypeError(fmt.Sprintf("onnx: %s %q", vs.role, v.Name), v.DType)
			}
		}
	}
	return nil
}
