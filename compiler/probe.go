package compiler

import (
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
)

// ReferenceOf is Reference's result for each value of vs, by its name
// there, besides the graph's outputs: the golden value of every
// intermediate the caller names (Reference computes them all and keeps
// only the outputs). The graph is left as it was: naming a value here
// does not make it an output of a compiled program.
func (g *Graph) ReferenceOf(cfg npu.Config, vs map[string]*Value) (map[string]*golden.Tensor, error) {
	saved := map[*Value][]string{}
	for name, v := range vs {
		if v == nil || v.g != g || v.invalid {
			continue
		}
		if _, ok := saved[v]; !ok {
			saved[v] = v.outputs
			v.outputs = slices.Clone(v.outputs)
		}
		v.outputs = append(v.outputs, name)
	}
	defer func() {
		for v, outs := range saved {
			v.outputs = outs
		}
	}()
	return g.Reference(cfg)
}

// Computed reports whether v is computed by the graph (and so may be an
// Output), not the graph input or a view of it.
func (v *Value) Computed() bool {
	return v != nil && !v.invalid && root(v).producer != nil
}
