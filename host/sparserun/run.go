// Package sparserun runs a convolution compiled for the sparse engine
// (compiler/sparseconv) on the Go simulator: it loads the weight lists
// and channel tables through the shared ports, streams each unit's
// entries into its memory unit (the next buffer set while the current
// one computes), starts each unit's tasks, reads every pass's output
// plane back (clearing it) and stitches the result. Every input is
// recorded, so the same run replays on Verilator.
package sparserun

import (
	"context"
	"fmt"
	"math/big"

	hw "github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

// UnitStats is one unit's counters at the end of the run.
type UnitStats struct {
	Busy, Stall, Mults uint64
	// Finished is the cycle its last read-out ended.
	Finished int
	// NNZ is the entries (non-zero inputs) of its memory unit.
	NNZ int
}

// Result is a finished run.
type Result struct {
	Output []int64 // [Cout][OH][OW]
	Units  []UnitStats
	// Cycles runs from the first load to the end of the last read-out;
	// WeightCycles of them load the weight lists and tables (every unit
	// waits for them before its first conv task).
	Cycles, WeightCycles int
	Design               *hdl.Design
	Stimulus             *stim.Stimulus
}

// Run runs p on a fresh simulator of its engine.
func Run(ctx context.Context, p *sparseconv.Program) (*Result, error) {
	m, err := hw.Build(p.Config)
	if err != nil {
		return nil, err
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		return nil, err
	}
	rec, err := stim.NewRecorder(d)
	if err != nil {
		return nil, err
	}
	r := &runner{p: p, rec: rec}
	if err := r.reset(); err != nil {
		return nil, err
	}
	res, err := r.run(ctx)
	if err != nil {
		return nil, err
	}
	res.Design, res.Stimulus = d, rec.Stimulus()
	return res, nil
}

type runner struct {
	p     *sparseconv.Program
	rec   *stim.Recorder
	err   error
	cycle int
}

func (r *runner) poke(port string, v uint64) {
	if r.err == nil {
		r.err = r.rec.Poke(port, v)
	}
}

func (r *runner) pokeBig(port string, v *big.Int) {
	if r.err == nil {
		r.err = r.rec.PokeBig(port, v)
	}
}

func (r *runner) peek(port string) uint64 {
	v, err := r.rec.Peek(port)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *runner) peekBig(port string) *big.Int {
	v, err := r.rec.Sim.PeekBig(port)
	if r.err == nil {
		r.err = err
	}
	return v
}

func (r *runner) reset() error {
	r.poke("rst", 1)
	r.rec.Step(2)
	r.poke("rst", 0)
	return r.err
}

// limit bounds a run: far more cycles than any program of the
// configuration's sizes can take.
func (r *runner) limit() int {
	n := len(r.p.Weights) + len(r.p.Table) + 100
	for i, u := range r.p.Units {
		n += (len(u.Entries) + 4) * r.p.Passes * 2
		n += int(r.p.Mults(i)) + 4*r.p.Passes*(u.OH*u.OW+16)
	}
	return n
}

func (r *runner) run(ctx context.Context) (*Result, error) {
	p := r.p
	units := make([]*unitDriver, len(p.Units))
	for i := range units {
		units[i] = newUnitDriver(r, i)
	}
	w := &weightLoader{r: r}
	res := &Result{}
	limit := r.limit()
	for {
		if r.cycle%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		done := true
		weightsIn := w.step()
		if weightsIn && res.WeightCycles == 0 {
			res.WeightCycles = r.cycle
		}
		for _, u := range units {
			u.step(weightsIn)
			done = done && u.finished()
		}
		if r.err != nil {
			return nil, r.err
		}
		if done {
			break
		}
		if r.cycle > limit {
			return nil, fmt.Errorf("sparserun: the engine did not finish within %d cycles", limit)
		}
		r.rec.Step(1)
		r.cycle++
	}
	res.Cycles = r.cycle
	var planes []sparseconv.Planes
	for i, u := range units {
		planes = append(planes, u.planes)
		res.Units = append(res.Units, UnitStats{
			Busy:     r.peek(hw.UnitPort(i, "busy_cycles")),
			Stall:    r.peek(hw.UnitPort(i, "stall_cycles")),
			Mults:    r.peek(hw.UnitPort(i, "mults")),
			Finished: u.end, NNZ: len(p.Units[i].Entries),
		})
	}
	if r.err != nil {
		return nil, r.err
	}
	out, err := p.Stitch(planes)
	if err != nil {
		return nil, err
	}
	res.Output = out
	return res, nil
}

// weightLoader writes the weight lists and the channel tables through
// the shared ports, one record of each per cycle; step reports whether
// both are in.
type weightLoader struct {
	r    *runner
	w, t int
}

func (l *weightLoader) step() bool {
	p := l.r.p
	l.r.poke("w_wr_en", 0)
	l.r.poke("t_wr_en", 0)
	if l.w == len(p.Weights) && l.t == len(p.Table) {
		return true // the last records were written at the previous edge
	}
	if l.w < len(p.Weights) {
		l.r.poke("w_wr_en", 1)
		l.r.poke("w_wr_addr", uint64(l.w))
		l.r.pokeBig("w_wr_data", p.Weights[l.w])
		l.w++
	}
	if l.t < len(p.Table) {
		l.r.poke("t_wr_en", 1)
		l.r.poke("t_wr_addr", uint64(l.t))
		l.r.pokeBig("t_wr_data", p.Table[l.t])
		l.t++
	}
	return false
}
