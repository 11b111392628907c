package bench

import (
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
)

var recorded struct {
	d  *hdl.Design
	st *Recording
}

// defaultStim records the default workload once per test binary.
func defaultStim(t testing.TB) (*hdl.Design, *Recording) {
	t.Helper()
	if recorded.st == nil {
		d, st, err := DefaultWorkload().Record()
		if err != nil {
			t.Fatal(err)
		}
		recorded.d, recorded.st = d, st
	}
	return recorded.d, recorded.st
}

// The recorded GEMM has its phases in order, the run phase starting with
// the first descriptor offered, and replays on a fresh simulator to the
// same outputs as on the interpreter that recorded it.
func TestWorkloadRecord(t *testing.T) {
	d, st := defaultStim(t)
	names := []string{"load", "run", "read", "idle"}
	if len(st.Phases) != len(names) {
		t.Fatalf("phases %+v", st.Phases)
	}
	for i, ph := range st.Phases {
		if ph.Name != names[i] || (i > 0 && ph.Start != st.Phases[i-1].End) || ph.End <= ph.Start {
			t.Fatalf("phases %+v", st.Phases)
		}
	}
	run, _ := st.Phase("run")
	pushed := false
	for _, ch := range changes(st.Stimulus) {
		if ch.Cycle == run.Start && st.Inputs[ch.Port].Name == "cmd_valid" && ch.Value.Sign() != 0 {
			pushed = true
		}
		if ch.Cycle >= st.Phases[3].Start {
			t.Fatalf("an input changes in the idle stretch: %+v", ch)
		}
	}
	if !pushed {
		t.Errorf("cmd_valid does not rise in the first cycle of the run phase (%d)", run.Start)
	}
	s1, _ := sim.New(d)
	s2, err := sim.NewWith(d, sim.Options{Compiled: true})
	if err != nil {
		t.Fatal(err)
	}
	_, a, err := replayGo(d, s1, st, st.Cycles())
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := replayGo(d, s2, st, st.Cycles())
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("interpreter and compiled simulator end differently:\n%s\n%s", a, b)
	}
}

// A short RunNPU: every side agrees (it fails otherwise) and every rate
// is there.
func TestRunNPU(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the NPU on Verilator")
	}
	tooltest.Need(t, "verilator")
	tooltest.Need(t, "iverilog")
	w := DefaultWorkload()
	w.Idle = 2000
	cfg := NPUConfig{Repeats: 1, Inner: 1, IcarusCycles: 300, FirstResult: 100_000, Compiled: true}
	row, err := RunNPU(w, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if row.Go.Run <= 0 || row.Go.Idle <= 0 || row.GoCompiled.Run <= 0 || row.Verilator.Run <= 0 || row.Icarus != 0 {
		t.Errorf("missing or unexpected measurements: %+v", row)
	}
	md := MarkdownNPU(row)
	for _, want := range []string{"gemm 64×64×64", "Go simulator, interpreter (default)", "Go simulator, compiled", "Verilator"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

func benchNPU(b *testing.B, opt sim.Options) {
	d, st := defaultStim(b)
	run, _ := st.Phase("run")
	chs := changes(st.Stimulus)
	var cycles, evals uint64
	var cpu time.Duration
	for range b.N {
		b.StopTimer()
		s, err := sim.NewWith(d, opt)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := replayGo(d, s, &Recording{Stimulus: st.Stimulus, Phases: st.Phases[:1]}, run.Start); err != nil {
			b.Fatal(err)
		}
		e0 := s.Stats().Evals
		runtime.GC()
		c0 := processCPU()
		b.StartTimer()
		ci := 0
		for ci < len(chs) && chs[ci].Cycle < run.Start {
			ci++
		}
		for c := run.Start; c < run.End; c++ {
			for ; ci < len(chs) && chs[ci].Cycle == c; ci++ {
				s.PokeBig(st.Inputs[chs[ci].Port].Name, chs[ci].Value)
			}
			s.Step(1)
		}
		b.StopTimer()
		cpu += processCPU() - c0
		b.StartTimer()
		cycles += uint64(run.End - run.Start)
		evals += s.Stats().Evals - e0
	}
	b.ReportMetric(float64(cycles)/b.Elapsed().Seconds(), "cycles/s")
	b.ReportMetric(float64(evals)/float64(cycles), "evals/cycle")
	b.ReportMetric(float64(cycles)/cpu.Seconds(), "cycles/cpu-s")
}

// BenchmarkNPUGEMM times the run phase of the default GEMM on the Go
// simulator (each op one whole run phase on a fresh simulator).
func BenchmarkNPUGEMM(b *testing.B) { benchNPU(b, sim.Options{}) }

// BenchmarkNPUGEMMCompiled is BenchmarkNPUGEMM on the compiled simulator.
func BenchmarkNPUGEMMCompiled(b *testing.B) { benchNPU(b, sim.Options{Compiled: true}) }
