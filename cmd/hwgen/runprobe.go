package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
)

// Locating a difference. A run's intermediate values are not observable
// on the NPU: they live in on-chip buffers that later layers reuse, and
// only the graph's outputs are written to external memory and read back
// (host.Result.Outputs; the reference machine's compiler.Interpret reads
// the same lines). So when the output differs, the net is compiled once
// more with every lowered layer's output made a graph output, and that
// probe program runs on the reference machine and (unless --engine
// interp) the Go simulator; the golden models give every value anyway
// (compiler.Graph.ReferenceOf). The first layer in program order whose
// values differ, and its first element, locate the fault. The probe
// program is another program (more writes, other buffers): a fault of
// the original program's schedule can vanish in it, which is then said.

// tamperNPU, when set (by tests), changes the simulator's results before
// they are compared (probe: those of the probe program): the seam that
// injects a difference.
var tamperNPU func(res *host.Result, probe bool)

// difference is where two runs first disagree.
type difference struct {
	Value     string
	Index     []int
	Got, Want int64
	Missing   bool  // the value is absent from got, or of another shape
	WantShape []int // for Missing
}

// firstDifference compares the values named in order (those present in
// want) of two runs and returns the first value and element of got that
// differs from want's, or nil.
func firstDifference(order []string, want, got map[string]*golden.Tensor) *difference {
	for _, name := range order {
		w := want[name]
		if w == nil {
			continue
		}
		g := got[name]
		if g == nil || !slices.Equal(g.Shape, w.Shape) {
			return &difference{Value: name, Missing: true, WantShape: w.Shape}
		}
		for i := range w.Data {
			if w.Data[i] != g.Data[i] {
				return &difference{Value: name, Index: unflatten(w.Shape, i), Got: g.Data[i], Want: w.Data[i]}
			}
		}
	}
	return nil
}

// describe is the difference in words: got computed by gotBy, want by
// wantBy.
func (d *difference) describe(gotBy, wantBy string) string {
	if d.Missing {
		return fmt.Sprintf("%s is missing on %s or not of shape %v", d.Value, gotBy, d.WantShape)
	}
	return fmt.Sprintf("layer %s%v = %d on %s, %d on %s", d.Value, d.Index, d.Got, gotBy, d.Want, wantBy)
}

// probeProgram compiles the net on inputs xs (by name) with every lowered value that
// the graph computes made an output (a value of two names once, under
// the first).
func probeProgram(cfg npu.Config, net *lower.Net, xs map[string]*onnx.Array) (*compiler.Program, []string, error) {
	g, vals, err := net.GraphValuesOf(xs)
	if err != nil {
		return nil, nil, err
	}
	out := vals[net.Output()]
	named := map[*compiler.Value]bool{out: true}
	var order []string
	for _, name := range net.Probes() {
		v := vals[name]
		if name == net.Output() {
			order = append(order, name)
			continue
		}
		if named[v] || !v.Computed() {
			continue
		}
		named[v] = true
		g.Output(name, v)
		order = append(order, name)
	}
	if err := g.Err(); err != nil {
		return nil, nil, err
	}
	prog, err := compiler.CompileWith(cfg, g, growExt)
	return prog, order, err
}

// locate prints where a run first differs, layer by layer: the reference
// machine against the golden models (gold: every lowered value), and
// with a simulator the NPU against the reference machine, each on the
// probe program.
func locate(w io.Writer, cfg npu.Config, net *lower.Net, xs map[string]*onnx.Array, gold map[string]*golden.Tensor, simulate bool) {
	const what = "layer by layer (a program that writes every layer's output to external memory; intermediates are not observable otherwise)"
	prog, order, err := probeProgram(cfg, net, xs)
	if err != nil {
		fmt.Fprintf(w, "locate    %s: not possible, the probe program does not compile: %v\n", what, err)
		return
	}
	machine, _, err := compiler.Interpret(prog)
	if err != nil {
		fmt.Fprintf(w, "locate    %s: the reference machine fails: %v\n", what, err)
		return
	}
	found := false
	if d := firstDifference(order, gold, machine); d != nil {
		fmt.Fprintf(w, "locate    %s: first difference: %s\n", what, d.describe("the reference machine", "the golden models"))
		found = true
	}
	if simulate {
		intr, stop := interruptible()
		res, err := host.Run(cfg, prog, host.WithoutStimulus(), intr)
		stop()
		if err != nil {
			fmt.Fprintf(w, "locate    %s: the simulation fails: %v\n", what, err)
			return
		}
		if tamperNPU != nil {
			tamperNPU(res, true)
		}
		if d := firstDifference(order, machine, res.Outputs); d != nil {
			fmt.Fprintf(w, "locate    %s: first difference: %s\n", what, d.describe("the NPU", "the reference machine"))
			found = true
		}
	}
	if !found {
		fmt.Fprintf(w, "locate    %s: every layer agrees there, so the difference depends on the original program's schedule or buffers\n", what)
	}
}
