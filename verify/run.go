package verify

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hwgen/hwgen/internal/toolchain"
)

// RunOptions choose what a run of a build's harness does besides
// replaying the stimulus (see harnessCPP).
type RunOptions struct {
	Trace  string // file receiving every cycle's outputs, one line of hex per cycle
	Cycles int    // cycles to run; 0 means the stimulus's length (past it the inputs hold)
	Reps   int    // runs, each on a fresh model, for timing; 0 means one
	// Phases are the cycle counts at which the run is timed, increasing;
	// nil times the whole run as one phase.
	Phases []int
	VCD    string // waveforms of the first run (needs a build with trace)
	MemIn  string // memory preload ("index addr hex" lines)
	MemOut string // memory dump after the last run
}

// Lap is the time a phase of a run took, as the harness measured it.
type Lap struct {
	Wall, CPU time.Duration
}

// Report is what a run printed.
type Report struct {
	Laps    [][]Lap // per run, per phase reached
	Outputs string  // every output after the last clock edge, in hex, space-separated
}

// Run replays the stimulus file at path (stim.WriteFile) on the model in
// directory dir.
func (b *Build) Run(dir, stimulus string, opt RunOptions) (*Report, error) {
	args := []string{stimulus}
	add := func(key, v string) {
		if v != "" {
			args = append(args, key+"="+v)
		}
	}
	add("trace", opt.Trace)
	add("vcd", opt.VCD)
	add("memin", opt.MemIn)
	add("memout", opt.MemOut)
	if opt.Cycles > 0 {
		add("cycles", strconv.Itoa(opt.Cycles))
	}
	if opt.Reps > 1 {
		add("reps", strconv.Itoa(opt.Reps))
	}
	if len(opt.Phases) > 0 {
		ends := make([]string, len(opt.Phases))
		for i, e := range opt.Phases {
			ends[i] = strconv.Itoa(e)
		}
		add("phases", strings.Join(ends, ","))
	}
	out, err := toolchain.Run(dir, b.Binary, args...)
	if err != nil {
		return nil, fmt.Errorf("run verilator model: %w", err)
	}
	return parseReport(out)
}

// parseReport reads "phase I WALLNS CPUNS" lines (phase 0 starts a new
// run) and the closing "outputs ..." line.
func parseReport(out string) (*Report, error) {
	r := &Report{}
	done := false
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if o, ok := strings.CutPrefix(l, "outputs "); ok {
			r.Outputs, done = strings.TrimSpace(o), true
			continue
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 || f[0] != "phase" {
			return nil, fmt.Errorf("verilator model: unexpected output line %q", l)
		}
		ph, err1 := strconv.Atoi(f[1])
		wall, err2 := strconv.ParseInt(f[2], 10, 64)
		cpu, err3 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("verilator model: bad phase line %q", l)
		}
		if ph == 0 {
			r.Laps = append(r.Laps, nil)
		}
		if len(r.Laps) == 0 || ph != len(r.Laps[len(r.Laps)-1]) {
			return nil, fmt.Errorf("verilator model: phase line %q out of order", l)
		}
		last := &r.Laps[len(r.Laps)-1]
		*last = append(*last, Lap{Wall: time.Duration(wall), CPU: time.Duration(cpu)})
	}
	if !done {
		return nil, fmt.Errorf("verilator model: no outputs line in %q", out)
	}
	return r, nil
}
