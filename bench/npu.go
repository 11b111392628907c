package bench

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/workload"
)

// Recording is a workload's stimulus with its phases, the consecutive
// cycle ranges timed separately.
type Recording struct {
	*stim.Stimulus
	Phases []Phase
}

// Phase is a named range of cycles [Start, End).
type Phase struct {
	Name       string
	Start, End int
}

// Phase returns the phase called name (ok false if there is none).
func (r *Recording) Phase(name string) (Phase, bool) {
	for _, p := range r.Phases {
		if p.Name == name {
			return p, true
		}
	}
	return Phase{}, false
}

// ends lists the phases' last cycles (exclusive), the harness's phases.
func (r *Recording) ends() []int {
	e := make([]int, len(r.Phases))
	for i, p := range r.Phases {
		e[i] = p.End
	}
	return e
}

// Change sets input Port (an index into Inputs) to Value before edge Cycle.
type Change struct {
	Cycle int
	Port  int
	Value *big.Int
}

// changes lists where st's inputs change (every input starts at 0), so
// that a replay pokes only those.
func changes(st *stim.Stimulus) []Change {
	var out []Change
	cur := make([]*big.Int, len(st.Inputs))
	for i := range cur {
		cur[i] = new(big.Int)
	}
	for c, row := range st.Rows {
		for i, v := range row {
			if v.Cmp(cur[i]) != 0 {
				cur[i] = v
				out = append(out, Change{Cycle: c, Port: i, Value: v})
			}
		}
	}
	return out
}

// Workload is what the NPU benchmark runs: one compiled tensor workload
// (hwgen sim's --op and shapes) on one NPU configuration, then Idle
// cycles with nothing to do.
type Workload struct {
	Config npu.Config
	Op     workload.Workload
	Idle   int
}

// DefaultWorkload is the one BENCHMARKS.md reports: GEMM 64×64×64 on the
// 16×16 NPU of NPUOf, then 20000 idle cycles.
func DefaultWorkload() Workload {
	return Workload{Config: NPUOf(16, 16), Op: workload.Workload{Op: "gemm"}.WithDefaults(), Idle: 20000}
}

// NPUOf is the NPU the benchmarks simulate and elaborate: the default
// with rows × cols PEs, one planar post unit per row and no psum read
// port. The default NPU has had four post units and the port since
// 2026-11-28; the benchmarks keep the NPU they were first measured on, so
// a simulator's figures stay comparable across that change (and the
// larger planar engine is the harder netlist to simulate).
func NPUOf(rows, cols int) npu.Config {
	c := npu.DefaultConfig()
	c.Rows, c.Cols, c.PlanarLanes, c.PsumReadPort = rows, cols, rows, false
	return c
}

// Name describes the workload, e.g. "gemm 64×64×64".
func (w Workload) Name() string {
	o := w.Op
	switch o.Op {
	case "gemm":
		return fmt.Sprintf("gemm %d×%d×%d", o.M, o.K, o.N)
	case "transpose":
		return fmt.Sprintf("transpose %d×%d", o.M, o.N)
	}
	return fmt.Sprintf("%s %d×%d×%d", o.Op, o.C, o.H, o.W)
}

// Record compiles the workload, runs it on the Go simulator through the
// simulation top's ports (host.Run: load the image through the host
// memory port, push the descriptors, wait for idle, read the outputs
// back), checks the outputs against the golden model, and returns the
// design and the recorded stimulus with its phases: "load" (reset and the
// image), "run" (first descriptor to idle), "read" (outputs read back) and
// "idle" (w.Idle more cycles with no input changing).
func (w Workload) Record() (*hdl.Design, *Recording, error) {
	if err := w.Op.Validate(); err != nil {
		return nil, nil, err
	}
	g, err := w.Op.Graph(w.Op.RandomInputs(nil))
	if err != nil {
		return nil, nil, err
	}
	prog, err := compiler.Compile(w.Config, g)
	if err != nil {
		return nil, nil, err
	}
	want, err := g.Reference(w.Config)
	if err != nil {
		return nil, nil, err
	}
	res, err := host.Run(w.Config, prog)
	if err != nil {
		return nil, nil, err
	}
	for name, t := range want {
		got, ok := res.Outputs[name]
		if !ok {
			return nil, nil, fmt.Errorf("bench: %s: no output %s", w.Name(), name)
		}
		if len(got.Data) != len(t.Data) {
			return nil, nil, fmt.Errorf("bench: %s: output %s has %d elements, want %d", w.Name(), name, len(got.Data), len(t.Data))
		}
		for i := range t.Data {
			if got.Data[i] != t.Data[i] {
				return nil, nil, fmt.Errorf("bench: %s: output %s element %d is %d, want %d", w.Name(), name, i, got.Data[i], t.Data[i])
			}
		}
	}
	st := &Recording{Stimulus: res.Stimulus}
	// host.Run: 2 reset cycles, the image, then the run from the first
	// push, then the read-back (and one settled cycle).
	load := 2 + res.LoadCycles
	run := load + res.Cycles
	n := st.Cycles()
	if run > n {
		return nil, nil, fmt.Errorf("bench: %s: run ends at cycle %d of %d", w.Name(), run, n)
	}
	st.Phases = []Phase{{"load", 0, load}, {"run", load, run}, {"read", run, n}}
	if w.Idle > 0 && n > 0 {
		last := st.Rows[n-1]
		for range w.Idle {
			st.Rows = append(st.Rows, last)
		}
		st.Phases = append(st.Phases, Phase{"idle", n, n + w.Idle})
	}
	return res.Design, st, nil
}
