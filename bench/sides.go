package bench

import (
	"fmt"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
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

// runGoCLI times cycles of hwgen sim --top's loop (stim.RunRandom, its
// corner-biased stimulus with random resets) on the interpreter, so the
// CLI's rate is measured beside the benchmark's own.
func runGoCLI(d *hdl.Design, cycles int) (Lap, error) {
	s, err := sim.New(d)
	if err != nil {
		return Lap{}, err
	}
	inputs, _ := stim.Ports(d)
	w0, c0 := time.Now(), processCPU()
	if err := stim.RunRandom(s, inputs, 1, cycles, nil); err != nil {
		return Lap{}, err
	}
	return Lap{Wall: time.Since(w0), CPU: processCPU() - c0}, nil
}

// stimulusPeriod caps the stimulus file of the built-in designs, which
// the Verilator harness holds in memory: a million cycles of array16's 34
// inputs would take 400 MB.
const stimulusPeriod = 1 << 16

// runVerilator runs cycles of the stimulus file at path (length cycles
// long) on the built model; a longer run is split into equal runs, each
// on a fresh model from the start of the stimulus (reset included). It
// returns the loop time the model measured itself (wall and CPU, summed
// over the runs), the final outputs of the last run and the number of
// cycles run in all.
func runVerilator(b *verify.Build, path string, length, cycles int) (Lap, string, int, error) {
	reps := max(1, (cycles+length-1)/length)
	per := (cycles + reps - 1) / reps
	r, err := b.Run("", path, verify.RunOptions{Cycles: per, Reps: reps})
	if err != nil {
		return Lap{}, "", 0, err
	}
	var sum Lap
	for _, l := range r.Laps {
		if len(l) != 1 {
			return Lap{}, "", 0, fmt.Errorf("bench: verilator timed %d phases, want one", len(l))
		}
		sum.Wall += l[0].Wall
		sum.CPU += l[0].CPU
	}
	if len(r.Laps) != reps {
		return Lap{}, "", 0, fmt.Errorf("bench: verilator timed %d runs, want %d", len(r.Laps), reps)
	}
	return sum, r.Outputs, reps * per, nil
}
