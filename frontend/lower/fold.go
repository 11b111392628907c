package lower

import (
	"github.com/hwgen/hwgen/frontend/onnx"
)

// fold finds the values that do not depend on the graph input's data and
// takes them from the calibration run (env) as constants, before anything
// is lowered: the initializers, Constant nodes, Shape of any value (every
// shape is fixed once the input's is: batch 1, the calibrated size), and
// every node all of whose inputs are such constants, whatever its op
// (Gather, Unsqueeze, Concat, Slice, Cast, Transpose or Reshape of a
// weight, ...). The folded nodes are done: the lowering never sees them,
// and they do not count as users of the values they read, so the
// x.view(x.size(0), -1) of a PyTorch export leaves a plain Reshape of x
// by a constant shape. FLOAT constants go to consts, integer ones to ints:
// shapes are needed by nobody once folded, since the lowering takes every
// value's shape from calibration, but a reduction's axes input is read.
func (l *lowering) fold(env map[string]*onnx.Array) {
	known := map[string]bool{}
	for _, t := range l.g.Initializers {
		known[t.Name] = true
	}
	for _, n := range l.g.Nodes {
		c := n.OpType == "Shape" || n.OpType == "Constant"
		if !c {
			c = true
			for _, in := range n.Inputs {
				if in != "" && !known[in] {
					c = false
					break
				}
			}
		}
		if !c {
			continue
		}
		l.done[n] = true
		for _, o := range n.Outputs {
			known[o] = true
		}
	}
	for name := range known {
		switch a, ok := env[name]; {
		case ok && a.IsInt():
			l.ints[name] = a.Ints
		case ok:
			l.consts[name] = a
		}
	}
}
