package onnx

import (
	"fmt"

	"github.com/hwgen/hwgen/internal/budget"
)

// The float executor keeps every value of a run, and a small model can
// ask for huge ones (a ConstantOfShape, a Pad, a Resize of a 27 KB file
// can make gigabytes). Two bounds keep it within the memory budget:
// every array made from a shape is checked before it is allocated (half
// the budget at most), and after each node the values kept so far (the
// other half). A run over either is an error naming the node, not the
// runtime's out-of-memory crash.

// overBudget is the panic NewArray raises for an array over the budget;
// evalNode recovers it as the node's error.
type overBudget struct{ err error }

// checkAlloc refuses an array of n elements of size bytes each over
// half the memory budget, before it is allocated.
func checkAlloc(shape []int, n, size int) {
	lim, src := budget.Limit()
	if n < 0 || float64(n)*float64(size) > float64(lim)/2 {
		panic(overBudget{fmt.Errorf("a value of shape %v (%s) is over half the memory limit of %s (%s)",
			shape, budget.Format(int64(float64(max(n, 0))*float64(size))), budget.Format(lim), src)})
	}
}

// recoverBudget turns an overBudget panic into *err.
func recoverBudget(err *error) {
	if r := recover(); r != nil {
		ob, ok := r.(overBudget)
		if !ok {
			panic(r)
		}
		*err = ob.err
	}
}

// bytesOf is the memory an array's values take.
func bytesOf(a *Array) int64 {
	if a == nil {
		return 0
	}
	return 4*int64(len(a.Data)) + 8*int64(len(a.Ints))
}

// checkKept refuses a run whose kept values exceed half the budget.
func checkKept(kept int64, n *Node) error {
	lim, src := budget.Limit()
	if kept > lim/2 {
		return fmt.Errorf("the values computed up to node %q (%s) take %s, over half the memory limit of %s (%s)",
			n.Name, n.OpType, budget.Format(kept), budget.Format(lim), src)
	}
	return nil
}
