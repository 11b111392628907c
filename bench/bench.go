// Package bench measures simulation speed side by side: the Go simulator
// (interpreted and compiled), Verilator (run only, and build + run) and
// Icarus Verilog run the same design on the same stimulus, and all must
// end with the same outputs, which checks that they really ran the same
// thing. The built-in designs take one xorshift64 sequence, which the Go
// simulator and Icarus generate as they go and Verilator's harness reads
// from a stimulus file (package stim) before it starts timing; the NPU
// replays a workload recorded on the Go simulator (Workload.Record).
package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
)

// Config sets how long each side runs. Verilator is fast and Icarus slow,
// so each gets a cycle count that takes long enough to time.
type Config struct {
	GoCycles        int
	VerilatorCycles int
	IcarusCycles    int
	FirstResult     int // cycles for the time-to-first-result column
	Repeats         int // timings are the median of this many runs
}

// DefaultConfig is what BENCHMARKS.md is produced with.
var DefaultConfig = Config{GoCycles: 100_000, VerilatorCycles: 1_000_000, IcarusCycles: 5_000, FirstResult: 100_000, Repeats: 3}

// Row is one design's measurements. Rates are cycles per second of CPU
// time (the medians of the repeats), which a busy machine disturbs far
// less than the wall clock.
type Row struct {
	Design            string
	Nodes             int
	GoRate            float64 // interpreter, run only
	GoCompiledRate    float64 // compiled (sim.Options.Compiled), run only; 0 if not measured
	GoCLIRate         float64 // interpreter driven as hwgen sim --top drives it (its own random stimulus)
	VerilatorRate     float64 // run only
	VerilatorBuild    time.Duration
	IcarusRate        float64       // vvp, start-up included
	GoFirstResult     time.Duration // elaborate-free: sim.New + FirstResult cycles
	VerilatorFirstRes time.Duration // fresh build + FirstResult cycles
}

// Run measures one design. It fails if the simulators do not end with
// the same outputs.
func Run(name string, d *hdl.Design, cfg Config, log io.Writer) (Row, error) {
	row := Row{Design: name}
	s, err := sim.New(d)
	if err != nil {
		return row, err
	}
	row.Nodes = s.Stats().Nodes
	compiled := func(d *hdl.Design) (*sim.Sim, error) { return sim.NewWith(d, sim.Options{Compiled: true}) }

	// Same stimulus, same ending: checked at the Icarus length.
	fmt.Fprintf(log, "%s: checking that all simulators agree over %d cycles\n", name, cfg.IcarusCycles)
	icarusLap, icarusOut, err := runIcarus(d, cfg.IcarusCycles)
	if err != nil {
		return row, err
	}
	row.IcarusRate = float64(cfg.IcarusCycles) / icarusLap.CPU.Seconds()
	_, goOut, err := runGo(d, cfg.IcarusCycles, nil)
	if err != nil {
		return row, err
	}
	_, cOut, err := runGo(d, cfg.IcarusCycles, compiled)
	if err != nil {
		return row, err
	}
	b, _, err := buildVerilator(d, false)
	if err != nil {
		return row, err
	}
	dir, err := os.MkdirTemp("", "hwgen-bench-stim-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(dir)
	stimPath := filepath.Join(dir, "stimulus.bin")
	length := max(cfg.IcarusCycles, min(cfg.VerilatorCycles, stimulusPeriod))
	if err := writeXorshift(stimPath, d, length); err != nil {
		return row, err
	}
	_, vOut, _, err := runVerilator(b, stimPath, length, cfg.IcarusCycles)
	if err != nil {
		return row, err
	}
	if goOut != vOut || goOut != icarusOut || cOut != goOut {
		return row, fmt.Errorf("bench %s: simulators disagree after %d cycles:\n  go        %s\n  compiled  %s\n  verilator %s\n  icarus    %s", name, cfg.IcarusCycles, goOut, cOut, vOut, icarusOut)
	}

	fmt.Fprintf(log, "%s: timing the Go simulator (%d cycles) and Verilator (%d cycles), %d rounds\n", name, cfg.GoCycles, cfg.VerilatorCycles, cfg.Repeats)
	var goT, cT, cliT, vT []time.Duration
	vCycles := 0
	for i := 0; i < cfg.Repeats; i++ {
		runtime.GC()
		t, _, err := runGo(d, cfg.GoCycles, nil)
		if err != nil {
			return row, err
		}
		goT = append(goT, t.CPU)
		runtime.GC()
		if t, _, err = runGo(d, cfg.GoCycles, compiled); err != nil {
			return row, err
		}
		cT = append(cT, t.CPU)
		runtime.GC()
		if t, err = runGoCLI(d, cfg.GoCycles); err != nil {
			return row, err
		}
		cliT = append(cliT, t.CPU)
		if t, _, vCycles, err = runVerilator(b, stimPath, length, cfg.VerilatorCycles); err != nil {
			return row, err
		}
		vT = append(vT, t.CPU)
	}
	row.GoRate = float64(cfg.GoCycles) / median(goT).Seconds()
	row.GoCompiledRate = float64(cfg.GoCycles) / median(cT).Seconds()
	row.GoCLIRate = float64(cfg.GoCycles) / median(cliT).Seconds()
	row.VerilatorRate = float64(vCycles) / median(vT).Seconds()

	fmt.Fprintf(log, "%s: timing a fresh Verilator build\n", name)
	_, build, err := buildVerilator(d, true)
	if err != nil {
		return row, err
	}
	row.VerilatorBuild = build
	row.VerilatorFirstRes = build + time.Duration(float64(cfg.FirstResult)/row.VerilatorRate*float64(time.Second))

	t0 := time.Now()
	if _, _, err := runGo(d, cfg.FirstResult, nil); err != nil {
		return row, err
	}
	row.GoFirstResult = time.Since(t0)
	return row, nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// Markdown renders rows as the table kept in BENCHMARKS.md.
func Markdown(rows []Row, cfg Config) string {
	out := "| design | nodes | Go sim cycles/s (interpreter) | compiled | hwgen sim --top loop | Verilator run-only cycles/s | Go / Verilator (interpreter, compiled) | Icarus cycles/s | Go / Icarus | Verilator build | time to first result (build + " +
		fmt.Sprint(cfg.FirstResult) + " cycles): Go / Verilator |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
	for _, r := range rows {
		out += fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %.0f%%, %.0f%% | %s | %.0f× | %.1f s | %.2f s / %.2f s |\n",
			r.Design, r.Nodes, rate(r.GoRate), rate(r.GoCompiledRate), rate(r.GoCLIRate), rate(r.VerilatorRate), 100*r.GoRate/r.VerilatorRate,
			100*r.GoCompiledRate/r.VerilatorRate, rate(r.IcarusRate), r.GoRate/r.IcarusRate, r.VerilatorBuild.Seconds(),
			r.GoFirstResult.Seconds(), r.VerilatorFirstRes.Seconds())
	}
	return out
}

func rate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2f M", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1f k", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}
