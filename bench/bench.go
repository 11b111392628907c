package bench

import (
	"fmt"
	"io"
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

// Row is one design's measurements.
type Row struct {
	Design            string
	Nodes             int
	GoRate            float64 // cycles/s, run only
	VerilatorRate     float64 // cycles/s, run only
	VerilatorBuild    time.Duration
	IcarusRate        float64
	GoFirstResult     time.Duration // elaborate-free: sim.New + FirstResult cycles
	VerilatorFirstRes time.Duration // fresh build + FirstResult cycles
}

// Run measures one design. It fails if the three simulators do not end
// with the same outputs.
func Run(name string, d *hdl.Design, cfg Config, log io.Writer) (Row, error) {
	row := Row{Design: name}
	s, err := sim.New(d)
	if err != nil {
		return row, err
	}
	row.Nodes = s.Stats().Nodes

	// Same stimulus, same ending: checked at the Icarus length.
	fmt.Fprintf(log, "%s: checking that all three simulators agree over %d cycles\n", name, cfg.IcarusCycles)
	icarusTime, icarusOut, err := runIcarus(d, cfg.IcarusCycles)
	if err != nil {
		return row, err
	}
	row.IcarusRate = float64(cfg.IcarusCycles) / icarusTime.Seconds()
	_, goOut, err := runGo(d, cfg.IcarusCycles)
	if err != nil {
		return row, err
	}
	b, _, err := verilatorBuild(d, false)
	if err != nil {
		return row, err
	}
	_, vOut, err := runVerilator(b, cfg.IcarusCycles)
	if err != nil {
		return row, err
	}
	if goOut != vOut || goOut != icarusOut {
		return row, fmt.Errorf("bench %s: simulators disagree after %d cycles:\n  go        %s\n  verilator %s\n  icarus    %s", name, cfg.IcarusCycles, goOut, vOut, icarusOut)
	}

	fmt.Fprintf(log, "%s: timing the Go simulator (%d cycles x %d)\n", name, cfg.GoCycles, cfg.Repeats)
	var goTimes, vTimes []time.Duration
	for i := 0; i < cfg.Repeats; i++ {
		runtime.GC()
		t, _, err := runGo(d, cfg.GoCycles)
		if err != nil {
			return row, err
		}
		goTimes = append(goTimes, t)
	}
	row.GoRate = float64(cfg.GoCycles) / median(goTimes).Seconds()

	fmt.Fprintf(log, "%s: timing Verilator (%d cycles x %d)\n", name, cfg.VerilatorCycles, cfg.Repeats)
	for i := 0; i < cfg.Repeats; i++ {
		t, _, err := runVerilator(b, cfg.VerilatorCycles)
		if err != nil {
			return row, err
		}
		vTimes = append(vTimes, t)
	}
	row.VerilatorRate = float64(cfg.VerilatorCycles) / median(vTimes).Seconds()

	fmt.Fprintf(log, "%s: timing a fresh Verilator build\n", name)
	_, build, err := verilatorBuild(d, true)
	if err != nil {
		return row, err
	}
	row.VerilatorBuild = build
	row.VerilatorFirstRes = build + time.Duration(float64(cfg.FirstResult)/row.VerilatorRate*float64(time.Second))

	t0 := time.Now()
	if _, _, err := runGo(d, cfg.FirstResult); err != nil {
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
	out := "| design | nodes | Go sim cycles/s | Verilator run-only cycles/s | Go / Verilator | Icarus cycles/s | Go / Icarus | Verilator build | time to first result (build + " +
		fmt.Sprint(cfg.FirstResult) + " cycles): Go / Verilator |\n|---|---|---|---|---|---|---|---|---|\n"
	for _, r := range rows {
		out += fmt.Sprintf("| %s | %d | %s | %s | %.1f%% | %s | %.1fx | %.1f s | %.2f s / %.2f s |\n",
			r.Design, r.Nodes, rate(r.GoRate), rate(r.VerilatorRate), 100*r.GoRate/r.VerilatorRate,
			rate(r.IcarusRate), r.GoRate/r.IcarusRate, r.VerilatorBuild.Seconds(),
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
