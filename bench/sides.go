package bench

import (
	"fmt"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/verify"
)

// runGo simulates cycles on a Go simulator of d built by newSim (sim.New
// when nil) and returns the run time (excluding construction) and the
// final outputs.
func runGo(d *hdl.Design, cycles int, newSim func(*hdl.Design) (*sim.Sim, error)) (Lap, string, error) {
	data, outputs, err := stimulusPorts(d)
	if err != nil {
		return Lap{}, "", err
	}
	if newSim == nil {
		newSim = sim.New
	}
	s, err := newSim(d)
	if err != nil {
		return Lap{}, "", err
	}
	hasRst := d.Info[d.Top].UsesReset
	x := xorshift(seed)
	w0, c0 := time.Now(), processCPU()
	for c := 0; c < cycles; c++ {
		if hasRst {
			rst := uint64(0)
			if c < 2 {
				rst = 1
			}
			s.Poke("rst", rst)
		}
		for _, p := range data {
			s.Poke(p.Name, x.next()&mask(p.Type.Width))
		}
		s.Step(1)
	}
	lap := Lap{Wall: time.Since(w0), CPU: processCPU() - c0}
	vals := make([]uint64, len(outputs))
	for i, p := range outputs {
		if vals[i], err = s.Peek(p.Name); err != nil {
			return Lap{}, "", err
		}
	}
	return lap, formatOutputs(vals, outputs), nil
}

// runVerilator runs the first cycles of the stimulus file at path on the
// built model and returns the loop time it measured itself (wall and CPU)
// and the final outputs.
func runVerilator(b *verify.Build, path string, cycles int) (Lap, string, error) {
	r, err := b.Run("", path, verify.RunOptions{Cycles: cycles})
	if err != nil {
		return Lap{}, "", err
	}
	if len(r.Laps) != 1 || len(r.Laps[0]) != 1 {
		return Lap{}, "", fmt.Errorf("bench: verilator timed %v, want one run of one phase", r.Laps)
	}
	return r.Laps[0][0], r.Outputs, nil
}
