package onnx

import (
	"fmt"
	"slices"
)

// Fold simplifies the graph for inference without changing what it
// computes, so that what is left is the network's own layers:
//
//   - Identity, and Dropout whose mask nobody reads, are removed, their
//     readers reading the input instead (inference: both pass it on);
//   - a Sum of two or more inputs becomes a chain of Adds (ResNet's
//     shortcut Sums then look like any other eltwise Add), a Sum of one
//     input is removed like an Identity;
//   - every node whose inputs are all constant (initializers, or folded
//     before it) is run once by the float executor and replaced by
//     initializers of its results: Constant, ConstantOfShape (the weight
//     stand-ins of the test networks), an Unsqueeze or Reshape of
//     weights, the Shape/Gather/Concat of exported reshapes;
//   - initializers nobody reads any more are dropped.
//
// Nodes that write graph outputs are kept, so that the outputs stay node
// results. Folded integer values become INT64 initializers.
func (m *Model) Fold() error {
	g := &m.Graph
	if g.Opset == 0 { // a Graph built by hand: evaluate in the model's opset
		g.Opset = m.Opset
	}
	outputs := map[string]bool{}
	for _, v := range g.Outputs {
		outputs[v.Name] = true
	}
	g.dropPassThrough(outputs)
	g.splitSums(2)
	if err := g.foldConstants(outputs); err != nil {
		return err
	}
	g.dropUnused(outputs)
	return nil
}

// Inference is a copy of g for a lowering that maps nodes one by one: the
// Identity, Dropout (mask unread) and one-input Sum nodes that write no
// graph output are removed as Model.Fold removes them, and a Sum of more
// than two inputs becomes a chain of Adds (so that every partial sum is
// a value of its own, which calibration sees); a Sum of two stays. g is
// not changed: the copy has its own node list and nodes, and shares the
// initializers and attributes.
func (g *Graph) Inference() *Graph {
	c := *g
	c.Nodes = make([]*Node, len(g.Nodes))
	for i, n := range g.Nodes {
		m := *n
		m.Inputs = slices.Clone(n.Inputs)
		c.Nodes[i] = &m
	}
	outputs := map[string]bool{}
	for _, v := range g.Outputs {
		outputs[v.Name] = true
	}
	c.dropPassThrough(outputs)
	c.splitSums(3)
	return &c
}

// dropPassThrough removes the Identity, Dropout (mask unread, no
// training_mode input) and one-input Sum nodes that write no graph
// output, renaming their readers' inputs.
func (g *Graph) dropPassThrough(outputs map[string]bool) {
	read := g.readers()
	alias := map[string]string{}
	kept := g.Nodes[:0]
	for _, n := range g.Nodes {
		for i, in := range n.Inputs {
			if a, ok := alias[in]; ok {
				n.Inputs[i] = a
			}
		}
		if passThrough(n, read) && !outputs[n.Outputs[0]] {
			alias[n.Outputs[0]] = n.Inputs[0]
			continue
		}
		kept = append(kept, n)
	}
	g.Nodes = kept
}

// passThrough reports whether n passes its first input on unchanged and
// has no other output anybody reads.
func passThrough(n *Node, read map[string]int) bool {
	if n.Domain != "" || len(n.Inputs) == 0 || n.Inputs[0] == "" || len(n.Outputs) == 0 {
		return false
	}
	switch n.OpType {
	case "Identity":
		return len(n.Inputs) == 1
	case "Sum":
		return len(n.Inputs) == 1
	case "Dropout":
		return len(n.Inputs) < 3 && (len(n.Outputs) == 1 || n.Outputs[1] == "" || read[n.Outputs[1]] == 0)
	}
	return false
}

// readers counts the node inputs that read each value.
func (g *Graph) readers() map[string]int {
	read := map[string]int{}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			read[in]++
		}
	}
	return read
}

// splitSums replaces each Sum of k ≥ least inputs (least ≥ 2) by k−1
// Adds, summing left to right as Sum does; the intermediate values get
// fresh names.
func (g *Graph) splitSums(least int) {
	used := g.names()
	fresh := func(base string) string {
		name := base
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s_%d", base, i)
		}
		used[name] = true
		return name
	}
	var nodes []*Node
	for _, n := range g.Nodes {
		if n.OpType != "Sum" || n.Domain != "" || len(n.Inputs) < least || len(n.Outputs) != 1 {
			nodes = append(nodes, n)
			continue
		}
		acc := n.Inputs[0]
		for i, in := range n.Inputs[1:] {
			out := n.Outputs[0]
			if i < len(n.Inputs)-2 {
				out = fresh(fmt.Sprintf("%s/sum%d", n.Outputs[0], i+1))
			}
			name := n.Name
			if len(n.Inputs) > 2 {
				name = fresh(fmt.Sprintf("%s/add%d", n.Name, i+1))
			}
			nodes = append(nodes, &Node{Name: name, OpType: "Add", Inputs: []string{acc, in}, Outputs: []string{out}, Attrs: map[string]Attr{}})
			acc = out
		}
	}
	g.Nodes = nodes
}

// names is every value and node name in the graph.
func (g *Graph) names() map[string]bool {
	used := map[string]bool{}
	for _, v := range g.Inputs {
		used[v.Name] = true
	}
	for _, t := range g.Initializers {
		used[t.Name] = true
	}
	for _, n := range g.Nodes {
		used[n.Name] = true
		for _, o := range n.Outputs {
			used[o] = true
		}
	}
	return used
}

// foldConstants runs every node whose inputs are all constant and writes
// its results as initializers.
func (g *Graph) foldConstants(outputs map[string]bool) error {
	consts := map[string]*Array{}
	for _, t := range g.Initializers {
		a, err := valueOf(t)
		if err != nil {
			return err
		}
		consts[t.Name] = a
	}
	kept := g.Nodes[:0]
	for i, n := range g.Nodes {
		if !g.foldable(n, consts, outputs) {
			kept = append(kept, n)
			continue
		}
		ys, err := g.evalNode(n, consts)
		if err != nil {
			return fmt.Errorf("onnx: folding %s: %w", n.label(i), err)
		}
		for j, o := range n.Outputs {
			if o == "" {
				continue
			}
			consts[o] = ys[j]
			g.Initializers = append(g.Initializers, tensorOf(o, ys[j]))
		}
	}
	g.Nodes = kept
	return nil
}

// foldable reports whether n is a default-domain op the executor runs
// whose inputs are all in consts and whose outputs are no graph output.
func (g *Graph) foldable(n *Node, consts map[string]*Array, outputs map[string]bool) bool {
	if n.Domain != "" {
		return false
	}
	if _, ok := floatOps[n.OpType]; !ok {
		if _, ok := floatMultiOps[n.OpType]; !ok {
			return false
		}
	}
	for _, in := range n.Inputs {
		if _, ok := consts[in]; in != "" && !ok {
			return false
		}
	}
	return !slices.ContainsFunc(n.Outputs, func(o string) bool { return outputs[o] })
}

// tensorOf is a as an initializer: FLOAT, or INT64 for an integer value.
func tensorOf(name string, a *Array) *Tensor {
	dims := make([]int64, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = int64(d)
	}
	if a.IsInt() {
		return &Tensor{Name: name, DType: Int64, Dims: dims, Int64: a.Ints}
	}
	return &Tensor{Name: name, DType: Float32, Dims: dims, Float32: a.Data}
}

// dropUnused removes the initializers no node reads and no graph output
// names.
func (g *Graph) dropUnused(outputs map[string]bool) {
	read := g.readers()
	g.Initializers = slices.DeleteFunc(g.Initializers, func(t *Tensor) bool {
		return read[t.Name] == 0 && !outputs[t.Name]
	})
}
