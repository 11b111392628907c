package onnx

import (
	"fmt"
)

// The IR versions Load accepts: ONNX 1.0's 3 through ONNX 1.18's 11
// (the official node tests carry 3 to 10). An IR version the reader does
// not know may change the meaning of fields it reads.
const (
	MinIRVersion = 1
	MaxIRVersion = 11
)

// checkIRVersion refuses an IR version outside MinIRVersion..MaxIRVersion.
func checkIRVersion(v int64) error {
	if v < MinIRVersion || v > MaxIRVersion {
		return fmt.Errorf("onnx: ir_version %d not supported; supported: %d to %d", v, MinIRVersion, MaxIRVersion)
	}
	return nil
}

// validateGraph checks the graph as a graph before anything lowers or
// runs it: every value has one producer (checkProducers), every input
// a node reads is produced before it (the graph is in the topological
// order the spec requires, with no cycle), and every declared shape is
// within MaxElements. Each error is one line naming the node or value.
func validateGraph(g *Graph) error {
	if err := checkProducers(g); err != nil {
		return err
	}
	if err := checkOrder(g); err != nil {
		return err
	}
	for _, vs := range []struct {
		role   string
		values []Value
	}{{"graph input", g.Inputs}, {"graph output", g.Outputs}} {
		for _, v := range vs.values {
			if err := checkDims(v); err != nil {
				return fmt.Errorf("onnx: %s %q: %w", vs.role, v.Name, err)
			}
		}
	}
	return nil
}

// checkOrder refuses a node input that no graph input, initializer or
// earlier node gives: a dangling name, or a cycle.
func checkOrder(g *Graph) error {
	known := map[string]bool{}
	for _, v := range g.Inputs {
		known[v.Name] = true
	}
	for _, t := range g.Initializers {
		known[t.Name] = true
	}
	for i, n := range g.Nodes {
		for _, in := range n.Inputs {
			if in != "" && !known[in] {
				return fmt.Errorf("onnx: %s: input %q is not a graph input, an initializer or an earlier node's output (the nodes must be in topological order)", n.label(i), in)
			}
		}
		for _, o := range n.Outputs {
			known[o] = true
		}
	}
	for _, v := range g.Outputs {
		if !known[v.Name] {
			return fmt.Errorf("onnx: graph output %q is not produced by any node, input or initializer", v.Name)
		}
	}
	return nil
}

// checkDims refuses a negative dimension or dims whose product passes
// MaxElements (or overflows int64); symbolic and unknown dims are 1.
func checkDims(v Value) error {
	n := int64(1)
	for _, d := range v.Shape {
		if d.Size < 0 {
			return fmt.Errorf("dimension %d in %v is not allowed: want 0 or more", d.Size, v.Shape)
		}
		if d.Size > 0 && n > MaxElements/d.Size {
			return fmt.Errorf("shape %v holds more than %d elements", v.Shape, int64(MaxElements))
		}
		n *= max(d.Size, 1)
	}
	return nil
}
