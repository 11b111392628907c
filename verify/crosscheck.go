// Package verify makes "the Go simulator agrees with Verilator" a property
// any design can ask for: the same stimulus (package stim) runs on sim and
// on a Verilator build of the emitted Verilog, and every output is
// compared every cycle.
//
// Builds are cached by a content hash of the design, the harness and the
// flags; the stimulus is read by the harness at run time, so a new
// stimulus on the same design does not rebuild.
package verify

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
)

// Options tune a cross-check.
type Options struct {
	// Dir receives the stimulus, output traces and, on a mismatch, the VCD
	// of each side. Empty: a fresh temporary directory.
	Dir   string
	Build BuildOptions
	// NewSim builds the Go simulator; nil means sim.New. Tests use it to
	// check that the harness catches a broken simulator.
	NewSim func(*hdl.Design) (*sim.Sim, error)
	// MemInit preloads memory words on both sides before the first cycle.
	MemInit []MemWord
	// CompareMemories compares every word of every memory after the last
	// cycle, after the outputs.
	CompareMemories bool
}

// Result describes a successful cross-check.
type Result struct {
	Cycles       int
	Outputs      int
	Cached       bool // the Verilator build came from the cache
	BuildTime    time.Duration
	VerilatorRun time.Duration
	GoRun        time.Duration
}

// Mismatch is the first divergence between the two simulators.
type Mismatch struct {
	Cycle        int
	Port         string // an output port, or "memory PATH[ADDR]" after the run
	Go           string // hex
	Verilator    string // hex
	GoVCD        string
	VerilatorVCD string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("cross-check mismatch at cycle %d, output %s: go sim 0x%s, verilator 0x%s (waveforms: %s, %s)",
		m.Cycle, m.Port, m.Go, m.Verilator, m.GoVCD, m.VerilatorVCD)
}

// CrossCheck runs st on the Go simulator and on Verilator and compares
// every output every cycle. It returns a *Mismatch error on the first
// divergence.
func CrossCheck(d *hdl.Design, st *stim.Stimulus, opt Options) (*Result, error) {
	if opt.NewSim == nil {
		opt.NewSim = sim.New
	}
	if err := checkStimulus(d, st); err != nil {
		return nil, err
	}
	dir := opt.Dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "hwgen-verify-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	res := &Result{Cycles: st.Cycles()}
	t0 := time.Now()
	b, err := BuildVerilator(d, opt.Build)
	if err != nil {
		return nil, err
	}
	res.Cached, res.BuildTime = b.Cached, time.Since(t0)

	stimPath := filepath.Join(dir, "stimulus.bin")
	if err := stim.WriteFile(stimPath, st); err != nil {
		return nil, err
	}
	run := RunOptions{Trace: filepath.Join(dir, "verilator.out")}
	mems := Memories(d)
	if len(opt.MemInit) > 0 {
		if opt.Build.NoMemoryAccess {
			return nil, fmt.Errorf("cross-check of %s: a memory preload needs a build with memory access", d.Top.Name)
		}
		run.MemIn = filepath.Join(dir, "memin.hex")
		if err := writeMemInit(run.MemIn, mems, opt.MemInit); err != nil {
			return nil, err
		}
	}
	if opt.CompareMemories {
		if opt.Build.NoMemoryAccess {
			return nil, fmt.Errorf("cross-check of %s: comparing memories needs a build with memory access", d.Top.Name)
		}
		run.MemOut = filepath.Join(dir, "memout.hex")
	}
	t0 = time.Now()
	if _, err := b.Run(dir, stimPath, run); err != nil {
		return nil, err
	}
	res.VerilatorRun = time.Since(t0)

	_, outputs := stim.Ports(d)
	res.Outputs = len(outputs)
	t0 = time.Now()
	gOut, gs, err := runGo(d, st, opt, "")
	if err != nil {
		return nil, err
	}
	res.GoRun = time.Since(t0)

	f, err := os.Open(run.Trace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for c := 0; c < st.Cycles(); c++ {
		if !sc.Scan() {
			return nil, fmt.Errorf("verilator model stopped after %d of %d cycles", c, st.Cycles())
		}
		vRow := strings.Fields(sc.Text())
		for i, p := range outputs {
			if i >= len(vRow) || vRow[i] != gOut[c][i] {
				mm := &Mismatch{Cycle: c, Port: p.Name, Go: gOut[c][i]}
				if i < len(vRow) {
					mm.Verilator = vRow[i]
				}
				mm.GoVCD, mm.VerilatorVCD = waveforms(d, st, c, dir, b, stimPath, run, opt)
				return nil, mm
			}
		}
	}
	if opt.CompareMemories {
		dump, err := readMemDump(run.MemOut, mems)
		if err != nil {
			return nil, err
		}
		for i, m := range mems {
			for a := 0; a < m.Depth; a++ {
				v, err := gs.MemRead(m.Path, a)
				if err != nil {
					return nil, err
				}
				if g := hexOf(v, m.Type.Width); g != dump[i][a] {
					mm := &Mismatch{Cycle: st.Cycles(), Port: fmt.Sprintf("memory %s[%d]", m.Path, a), Go: g, Verilator: dump[i][a]}
					mm.GoVCD, mm.VerilatorVCD = waveforms(d, st, st.Cycles()-1, dir, b, stimPath, run, opt)
					return nil, mm
				}
			}
		}
	}
	return res, nil
}

// waveforms reruns both sides up to the failing cycle with VCD output;
// the Verilator side replays the first cycles of the same stimulus file.
func waveforms(d *hdl.Design, st *stim.Stimulus, cycle int, dir string, b *Build, stimPath string, run RunOptions, opt Options) (goVCD, vVCD string) {
	cut := &stim.Stimulus{Inputs: st.Inputs, Rows: st.Rows[:min(cycle+2, len(st.Rows))]}
	goVCD = filepath.Join(dir, "gosim.vcd")
	if _, _, err := runGo(d, cut, opt, goVCD); err != nil {
		goVCD = "(none: " + err.Error() + ")"
	}
	if opt.Build.NoTrace {
		return goVCD, "(none: built without trace)"
	}
	vVCD = filepath.Join(dir, "verilator.vcd")
	cutRun := RunOptions{Trace: filepath.Join(dir, "verilator_cut.out"), Cycles: cut.Cycles(), VCD: vVCD, MemIn: run.MemIn}
	if _, err := b.Run(dir, stimPath, cutRun); err != nil {
		vVCD = "(none: " + err.Error() + ")"
	}
	return goVCD, vVCD
}

// RunGo runs st on the Go simulator and returns each cycle's outputs as
// hex, sampled after the inputs settle and before the clock edge. A
// non-empty vcd path writes waveforms.
func RunGo(d *hdl.Design, st *stim.Stimulus, newSim func(*hdl.Design) (*sim.Sim, error), vcd string) ([][]string, error) {
	rows, _, err := runGo(d, st, Options{NewSim: newSim}, vcd)
	return rows, err
}

// runGo is RunGo with memory preloading; it also returns the simulator so
// the caller can inspect its final state.
func runGo(d *hdl.Design, st *stim.Stimulus, opt Options, vcd string) ([][]string, *sim.Sim, error) {
	newSim := opt.NewSim
	if newSim == nil {
		newSim = sim.New
	}
	s, err := newSim(d)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range opt.MemInit {
		if err := s.MemWrite(w.Path, w.Addr, w.Value); err != nil {
			return nil, nil, fmt.Errorf("memory preload: %w", err)
		}
	}
	if vcd != "" {
		f, err := os.Create(vcd)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		if err := s.DumpVCD(f); err != nil {
			return nil, nil, err
		}
		defer s.CloseVCD()
	}
	_, outputs := stim.Ports(d)
	rows := make([][]string, 0, st.Cycles())
	for _, row := range st.Rows {
		for i, p := range st.Inputs {
			if err := s.PokeBig(p.Name, row[i]); err != nil {
				return nil, nil, err
			}
		}
		out := make([]string, len(outputs))
		for i, p := range outputs {
			v, err := s.PeekBig(p.Name)
			if err != nil {
				return nil, nil, err
			}
			out[i] = hexOf(v, p.Type.Width)
		}
		rows = append(rows, out)
		s.Step(1)
	}
	return rows, s, nil
}

func hexOf(v *big.Int, width int) string {
	return fmt.Sprintf("%0*x", (width+3)/4, v)
}

// checkStimulus makes sure st drives exactly d's inputs, in order, with
// values that fit.
func checkStimulus(d *hdl.Design, st *stim.Stimulus) error {
	inputs, _ := stim.Ports(d)
	if len(st.Inputs) != len(inputs) {
		return fmt.Errorf("stimulus drives %d inputs, design %s has %d", len(st.Inputs), d.Top.Name, len(inputs))
	}
	for i, p := range inputs {
		if st.Inputs[i] != p {
			return fmt.Errorf("stimulus input %d is %s %s, design %s has %s %s", i, st.Inputs[i].Name, st.Inputs[i].Type, d.Top.Name, p.Name, p.Type)
		}
	}
	for c, row := range st.Rows {
		if len(row) != len(inputs) {
			return fmt.Errorf("stimulus cycle %d has %d values for %d inputs", c, len(row), len(inputs))
		}
		for i, v := range row {
			if v.Sign() < 0 || v.BitLen() > inputs[i].Type.Width {
				return fmt.Errorf("stimulus cycle %d: value %s does not fit input %s (%s)", c, v, inputs[i].Name, inputs[i].Type)
			}
		}
	}
	return nil
}
