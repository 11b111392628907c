package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// NPUConfig sets how the NPU workload is timed.
type NPUConfig struct {
	Repeats int // timing rounds, each Go interpreter, Go compiled, Verilator in turn; medians reported
	Inner   int // replays per round and side, each on a fresh simulator (the median counts)
	// IcarusCycles is how far Icarus replays the stimulus (it is slow):
	// 0 skips Icarus, -1 means to the end of the run phase.
	IcarusCycles int
	FirstResult  int  // cycles of the time-to-first-result column
	Compiled     bool // also time the compiled Go simulator (sim.Options.Compiled)
	FreshBuilds  bool // time fresh (uncached) Verilator and compiled-Go builds
}

// DefaultNPUConfig is what BENCHMARKS.md is produced with.
var DefaultNPUConfig = NPUConfig{Repeats: 5, Inner: 3, IcarusCycles: -1, FirstResult: 100_000, Compiled: true, FreshBuilds: true}

// Rates are one simulator's speeds on the phases of the workload.
type Rates struct {
	Run  float64 // cycles/s over the run phase (first descriptor to idle)
	Idle float64 // cycles/s over the idle stretch
	All  float64 // cycles/s over the whole stimulus
}

// NPURow is the measurement of one workload.
type NPURow struct {
	Workload   string
	Design     string
	Nodes      int
	Registers  int
	Cycles     int // whole stimulus
	RunCycles  int
	IdleCycles int

	// Rates by CPU time (the comparisons) and by the wall clock.
	Go, GoCompiled, Verilator             Rates
	GoWall, GoCompiledWall, VerilatorWall Rates
	Icarus, IcarusWall                    float64 // cycles/s over the part of the run phase it replayed
	IcarusCycles                          int     // cycles Icarus replayed (from 0)

	GoNew          time.Duration // sim.New (flattening, levelizing)
	GoCompile      time.Duration // generating and building the compiled simulator, uncached
	VerilatorBuild time.Duration // fresh Verilator build (-O2)
	FirstResult    int
}

// RunNPU records the workload on the Go simulator (checked against the
// golden model), replays it on the Go simulator (interpreter and, with
// cfg.Compiled, compiled), Verilator and Icarus, checks that all end with
// the same outputs, and times them phase by phase.
func RunNPU(w Workload, cfg NPUConfig, log io.Writer) (NPURow, error) {
	b := &npuBench{w: w, cfg: cfg, log: log, row: NPURow{Workload: w.Name(), FirstResult: cfg.FirstResult}}
	if err := b.record(); err != nil {
		return b.row, err
	}
	if err := b.buildVerilator(); err != nil {
		return b.row, err
	}
	dir, err := os.MkdirTemp("", "hwgen-bench-stim-")
	if err != nil {
		return b.row, err
	}
	defer os.RemoveAll(dir)
	b.stimPath = filepath.Join(dir, "stimulus.bin")
	if err := stim.WriteFile(b.stimPath, b.st.Stimulus); err != nil {
		return b.row, err
	}
	if cfg.Compiled && cfg.FreshBuilds {
		if err := b.timeCompiledBuild(); err != nil {
			return b.row, err
		}
	}
	// Agreement over the whole stimulus, then over the Icarus prefix.
	if err := b.agree(); err != nil {
		return b.row, err
	}
	if cfg.IcarusCycles != 0 {
		if err := b.icarus(); err != nil {
			return b.row, err
		}
	}
	if err := b.timeRounds(); err != nil {
		return b.row, err
	}
	return b.row, nil
}

// npuBench is one RunNPU: the recorded workload, the simulators it is
// replayed on, and the row being filled in.
type npuBench struct {
	w   Workload
	cfg NPUConfig
	log io.Writer
	row NPURow

	d        *hdl.Design
	st       *Recording
	run      Phase    // the run phase of st
	s        *sim.Sim // the Go interpreter the agreement check replays on
	vb       *verify.Build
	stimPath string // st's stimulus, for Verilator
}

// newCompiled is a compiled Go simulator of d.
func newCompiled(d *hdl.Design) (*sim.Sim, error) { return sim.NewWith(d, sim.Options{Compiled: true}) }

// record records the workload and builds the Go interpreter.
func (b *npuBench) record() error {
	w, row := b.w, &b.row
	fmt.Fprintf(b.log, "%s: compiling and recording on the Go simulator\n", w.Name())
	d, st, err := w.Record()
	if err != nil {
		return err
	}
	b.d, b.st = d, st
	row.Design = d.Top.Name
	b.run, _ = st.Phase("run")
	idle, hasIdle := st.Phase("idle")
	row.Cycles, row.RunCycles = st.Cycles(), b.run.End-b.run.Start
	if hasIdle {
		row.IdleCycles = idle.End - idle.Start
	}
	t0 := time.Now()
	s, err := sim.New(d)
	if err != nil {
		return err
	}
	b.s = s
	row.GoNew = time.Since(t0)
	stats := s.Stats()
	row.Nodes, row.Registers = stats.Nodes, stats.Registers
	return nil
}

// buildVerilator builds the Verilator model (cached) and, with
// FreshBuilds, times an uncached build.
func (b *npuBench) buildVerilator() error {
	fmt.Fprintf(b.log, "%s: building on Verilator (-O2)\n", b.w.Name())
	vb, _, err := buildVerilator(b.d, false)
	if err != nil {
		return err
	}
	b.vb = vb
	if b.cfg.FreshBuilds {
		fmt.Fprintf(b.log, "%s: timing a fresh Verilator build\n", b.w.Name())
		if _, b.row.VerilatorBuild, err = buildVerilator(b.d, true); err != nil {
			return err
		}
	}
	return nil
}

// timeCompiledBuild times an uncached build of the compiled Go simulator.
func (b *npuBench) timeCompiledBuild() error {
	fmt.Fprintf(b.log, "%s: timing a fresh build of the compiled Go simulator\n", b.w.Name())
	dir, err := os.MkdirTemp("", "hwgen-bench-gosim-")
	if err != nil {
		return err
	}
	t0 := time.Now()
	_, err = sim.NewWith(b.d, sim.Options{Compiled: true, CacheDir: dir})
	b.row.GoCompile = time.Since(t0)
	os.RemoveAll(dir)
	return err
}

// agree checks that the Go interpreter, Verilator and (Compiled) the
// compiled Go simulator end the whole stimulus with the same outputs.
func (b *npuBench) agree() error {
	d, st, w := b.d, b.st, b.w
	_, goOut, err := replayGo(d, b.s, st, st.Cycles())
	if err != nil {
		return err
	}
	_, vOut, err := replayVerilator(b.vb, b.stimPath, st, st.Cycles(), 1)
	if err != nil {
		return err
	}
	if goOut != vOut {
		return fmt.Errorf("bench %s: Go and Verilator disagree after %d cycles:\n  go        %s\n  verilator %s", w.Name(), st.Cycles(), goOut, vOut)
	}
	if b.cfg.Compiled {
		sc, err := newCompiled(d)
		if err != nil {
			return err
		}
		_, cOut, err := replayGo(d, sc, st, st.Cycles())
		if err != nil {
			return err
		}
		if cOut != goOut {
			return fmt.Errorf("bench %s: compiled and interpreted Go simulators disagree after %d cycles:\n  interpreted %s\n  compiled    %s", w.Name(), st.Cycles(), goOut, cOut)
		}
	}
	return nil
}

// icarus replays the stimulus on Icarus up to IcarusCycles (at most the
// run phase's end), checks it against the Go simulator there and rates
// the run-phase part.
func (b *npuBench) icarus() error {
	d, st, w, run, row := b.d, b.st, b.w, b.run, &b.row
	ic := b.cfg.IcarusCycles
	if ic < 0 || ic > run.End {
		ic = run.End
	}
	row.IcarusCycles = ic
	fmt.Fprintf(b.log, "%s: replaying %d cycles on Icarus\n", w.Name(), ic)
	it, cpuB, iOut, err := runStimIcarus(d, st, ic)
	if err != nil {
		return err
	}
	s2, err := sim.New(d)
	if err != nil {
		return err
	}
	_, gOut, err := replayGo(d, s2, st, ic)
	if err != nil {
		return err
	}
	if !agreeX(gOut, iOut) {
		return fmt.Errorf("bench %s: Go and Icarus disagree after %d cycles:\n  go     %s\n  icarus %s", w.Name(), ic, gOut, iOut)
	}
	if ic > run.Start {
		// The CPU time of the run-phase part: this run less one that
		// stops where the run phase starts (same startup, same load).
		fmt.Fprintf(b.log, "%s: replaying %d cycles on Icarus (the load phase alone)\n", w.Name(), run.Start)
		_, cpuA, _, err := runStimIcarus(d, st, run.Start)
		if err != nil {
			return err
		}
		if cpuB > cpuA {
			row.Icarus = float64(ic-run.Start) / (cpuB - cpuA).Seconds()
		}
		for i, ph := range st.Phases {
			if ph.Name == "run" && it[i] > 0 {
				row.IcarusWall = float64(ic-run.Start) / it[i].Seconds()
			}
		}
	}
	return nil
}

// timeRounds times the sides: the three in turn each round, so load on
// the machine hits all of them alike.
func (b *npuBench) timeRounds() error {
	cfg, st := b.cfg, b.st
	fmt.Fprintf(b.log, "%s: timing, %d rounds of %d replays per side\n", b.w.Name(), cfg.Repeats, cfg.Inner)
	var goT, cT, vT [][]Lap
	for range cfg.Repeats {
		t, err := b.goSide(sim.New)
		if err != nil {
			return err
		}
		goT = append(goT, t)
		if cfg.Compiled {
			t, err := b.goSide(newCompiled)
			if err != nil {
				return err
			}
			cT = append(cT, t)
		}
		vt, _, err := replayVerilator(b.vb, b.stimPath, st, st.Cycles(), cfg.Inner)
		if err != nil {
			return err
		}
		vT = append(vT, medianLaps(vt))
	}
	b.row.Go, b.row.GoWall = rates(st, medianLaps(goT))
	b.row.Verilator, b.row.VerilatorWall = rates(st, medianLaps(vT))
	if cfg.Compiled {
		b.row.GoCompiled, b.row.GoCompiledWall = rates(st, medianLaps(cT))
	}
	return nil
}

// goSide is one round of a Go simulator's timing: Inner replays, each on
// a fresh simulator from newSim; the median laps.
func (b *npuBench) goSide(newSim func(*hdl.Design) (*sim.Sim, error)) ([]Lap, error) {
	var reps [][]Lap
	for range b.cfg.Inner {
		s, err := newSim(b.d)
		if err != nil {
			return nil, err
		}
		runtime.GC()
		t, _, err := replayGo(b.d, s, b.st, b.st.Cycles())
		if err != nil {
			return nil, err
		}
		reps = append(reps, t)
	}
	return medianLaps(reps), nil
}

// medianLaps is the element-wise median of equal-length lists, wall and
// CPU apart.
func medianLaps(lists [][]Lap) []Lap {
	if len(lists) == 0 {
		return nil
	}
	out := make([]Lap, len(lists[0]))
	for i := range out {
		var wall, cpu []time.Duration
		for _, l := range lists {
			wall, cpu = append(wall, l[i].Wall), append(cpu, l[i].CPU)
		}
		out[i] = Lap{Wall: median(wall), CPU: median(cpu)}
	}
	return out
}

// rates turns phase laps into CPU-time and wall-clock rates.
func rates(st *Recording, laps []Lap) (cpu, wall Rates) {
	one := func(get func(Lap) time.Duration) Rates {
		var r Rates
		var total time.Duration
		for i, ph := range st.Phases {
			t := get(laps[i])
			total += t
			if t <= 0 {
				continue
			}
			rate := float64(ph.End-ph.Start) / t.Seconds()
			switch ph.Name {
			case "run":
				r.Run = rate
			case "idle":
				r.Idle = rate
			}
		}
		if total > 0 {
			r.All = float64(st.Cycles()) / total.Seconds()
		}
		return r
	}
	return one(func(l Lap) time.Duration { return l.CPU }), one(func(l Lap) time.Duration { return l.Wall })
}

// firstResult is build (or construction) time plus cycles at rate.
func firstResult(build time.Duration, cycles int, rate float64) time.Duration {
	if rate <= 0 {
		return 0
	}
	return build + time.Duration(float64(cycles)/rate*float64(time.Second))
}

// MarkdownNPU renders the measurement as the tables kept in BENCHMARKS.md.
// Rates are cycles per second of CPU time (median of the rounds); the
// wall-clock rate of the run phase is given for reference.
func MarkdownNPU(r NPURow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Workload: %s on `%s` (%d nodes, %d registers after flattening); %d cycles in all: %d in the run phase (first descriptor to idle), %d idle after the outputs are read back.\n\n",
		r.Workload, r.Design, r.Nodes, r.Registers, r.Cycles, r.RunCycles, r.IdleCycles)
	b.WriteString("| simulator | run phase cycles/s | vs Verilator | idle cycles/s | an idle cycle is cheaper by | whole stimulus cycles/s | run phase, wall clock | build | time to first result (build + " +
		fmt.Sprint(r.FirstResult) + " run-phase cycles) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	v := r.Verilator
	line := func(name string, x, wall Rates, build time.Duration, buildNote string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, rate(x.Run), pct(x.Run, v.Run), rate(x.Idle),
			times(x.Idle, x.Run), rate(x.All), rate(wall.Run), buildNote, secs(firstResult(build, r.FirstResult, x.Run)))
	}
	line("Go simulator, interpreter (default)", r.Go, r.GoWall, r.GoNew, fmt.Sprintf("%.2f s (sim.New)", r.GoNew.Seconds()))
	if r.GoCompiled.Run > 0 {
		note := "cached"
		if r.GoCompile > 0 {
			note = fmt.Sprintf("%.1f s (generate + go build)", r.GoCompile.Seconds())
		}
		line("Go simulator, compiled", r.GoCompiled, r.GoCompiledWall, r.GoCompile, note)
	}
	bn := "cached"
	if r.VerilatorBuild > 0 {
		bn = fmt.Sprintf("%.1f s", r.VerilatorBuild.Seconds())
	}
	line("Verilator -O2, run only", v, r.VerilatorWall, r.VerilatorBuild, bn)
	if r.Icarus > 0 {
		fmt.Fprintf(&b, "| Icarus Verilog (cycles %d..%d) | %s | %s | | | | %s | | |\n", r.IcarusCycles-min(r.IcarusCycles, r.RunCycles), r.IcarusCycles,
			rate(r.Icarus), pct(r.Icarus, v.Run), rate(r.IcarusWall))
		fmt.Fprintf(&b, "\nGo simulator ÷ Icarus on the run phase: interpreter %.0f×", r.Go.Run/r.Icarus)
		if r.GoCompiled.Run > 0 {
			fmt.Fprintf(&b, ", compiled %.0f×", r.GoCompiled.Run/r.Icarus)
		}
		b.WriteString(".\n")
	}
	return b.String()
}

func pct(x, of float64) string {
	if x <= 0 || of <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f%%", 100*x/of)
}

func times(x, of float64) string {
	if x <= 0 || of <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f×", x/of)
}

func secs(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// agreeX compares the Go simulator's final outputs with Icarus's, where a
// hex digit x (a register Icarus never set: 4-state, no initial value)
// stands for the 0 of the 2-state simulators.
func agreeX(goOut, icarus string) bool {
	if len(goOut) != len(icarus) {
		return false
	}
	for i := range goOut {
		if c := icarus[i]; c != goOut[i] && !(goOut[i] == '0' && (c == 'x' || c == 'X')) {
			return false
		}
	}
	return true
}
