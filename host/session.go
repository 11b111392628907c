package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
)

// Session is one simulated NPU kept alive across runs of one program:
// the image (weights, parameter tables, the first inputs) is loaded
// once, and each Run writes only the inputs it is given, pushes the
// program's descriptors again — their IDs continuing where the previous
// run's ended, as the task manager requires — and reads the outputs
// back. The whole session is one recorded stimulus (Stimulus), so it
// replays on Verilator like a single run.
//
//	s, _ := host.NewSession(cfg, prog)
//	defer s.Close()
//	for _, x := range images {
//		res, err := s.Run(map[string]*golden.Tensor{"x": x})
//		...
//	}
type Session struct {
	h          *runner
	next       []uint64 // per queue: the ID of the next run's first task
	loadCycles int      // loading the image at the start
	vcd        *os.File // the waveform, under a temporary name until Close
	vcdPath    string   // its name once the session ends well
	failed     bool     // a run failed: the waveform is not kept
	design     *hdl.Design
}

// NewSession resets the NPU of cfg and loads prog's image.
func NewSession(cfg npu.Config, prog *compiler.Program, opts ...Option) (*Session, error) {
	var opt Options
	for _, o := range opts {
		o(&opt)
	}
	if opt.Every <= 0 {
		opt.Every = 10000
	}
	cfg, err := runConfig(cfg, prog)
	if err != nil {
		return nil, err
	}
	d, err := Design(cfg)
	if err != nil {
		return nil, err
	}
	rec, err := stim.NewRecorder(d)
	if err != nil {
		return nil, err
	}
	rec.Record(!opt.NoStimulus)
	s := &Session{h: &runner{cfg: cfg, rec: rec, opt: opt, prog: prog}, design: d}
	if opt.VCD != "" {
		// Written next to its name and renamed when the session ends
		// well, so that an interrupted or failed run leaves no partial
		// waveform.
		s.vcdPath = opt.VCD
		if s.vcd, err = os.CreateTemp(filepath.Dir(opt.VCD), "."+filepath.Base(opt.VCD)+".tmp-"); err != nil {
			return nil, err
		}
		if err := s.vcd.Chmod(0o644); err != nil {
			s.failed = true
			s.Close()
			return nil, err
		}
		var filter []sim.VCDFilter
		if opt.VCDFilter != nil {
			filter = append(filter, *opt.VCDFilter)
		}
		if err := rec.Sim.DumpVCD(s.vcd, filter...); err != nil {
			s.failed = true
			s.Close()
			return nil, err
		}
		if opt.VCDTraced != nil {
			opt.VCDTraced(rec.Sim.VCDTraced())
		}
	}
	if err := s.h.reset(); err != nil {
		s.failed = true
		s.Close()
		return nil, err
	}
	if err := s.h.writeBases(); err != nil {
		s.failed = true
		s.Close()
		return nil, err
	}
	if s.loadCycles, err = s.h.load(); err != nil {
		s.failed = true
		s.Close()
		return nil, err
	}
	return s, nil
}

// runConfig is the configuration to run prog on: cfg, or cfg with the
// wider ext_addr_width the compiler grew it to for prog
// (compiler.Options.GrowExt): the external-memory model is sized from
// the program.
func runConfig(cfg npu.Config, prog *compiler.Program) (npu.Config, error) {
	grown := cfg
	grown.ExtAddrWidth = prog.Config.ExtAddrWidth
	switch {
	case prog.Config == cfg:
		return cfg, nil
	case prog.Config == grown && grown.ExtAddrWidth > cfg.ExtAddrWidth:
		return grown, nil
	}
	return cfg, errors.New("host: the program was compiled for another configuration")
}

// Run writes inputs (tensors of the program's input bindings, by name;
// the others keep what is in external memory), runs the program and
// reads its outputs. Result.LoadCycles counts the input lines written.
// A failed run leaves the session unusable; its partial Result shows
// where it stopped.
func (s *Session) Run(inputs map[string]*golden.Tensor) (*Result, error) {
	t0 := time.Now()
	h := s.h
	res := &Result{Design: s.design, Ideal: h.prog.Ideal}
	n, err := s.write(inputs)
	if err != nil {
		s.failed = true
		return nil, err
	}
	res.LoadCycles = n
	qt := h.prog.QueueTasks()
	for len(s.next) < len(qt) {
		s.next = append(s.next, 0)
	}
	if err := h.run(res, s.next); err != nil {
		s.failed = true
		res.Stimulus = s.Stimulus()
		return res, err
	}
	for q, tasks := range qt {
		s.next[q] += uint64(len(tasks))
	}
	if err := h.read(res); err != nil {
		s.failed = true
		return nil, err
	}
	h.rec.Step(1) // one settled cycle after the last read, for replays
	res.Stimulus = s.Stimulus()
	res.Wall = time.Since(t0)
	return res, nil
}

// write puts the given inputs' lines into external memory through the
// host port, one line per cycle, in a stable order.
func (s *Session) write(inputs map[string]*golden.Tensor) (int, error) {
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	h, n := s.h, 0
	for _, name := range names {
		b, ok := h.prog.Input(name)
		if !ok {
			return 0, fmt.Errorf("host: the program has no input %q", name)
		}
		lines, err := b.ToLines(inputs[name])
		if err != nil {
			return 0, err
		}
		for l, line := range lines {
			if err := h.writeLine(b.Base+l, line); err != nil {
				return 0, err
			}
			n++
		}
	}
	return n, h.poke("h_wr_valid", 0)
}

// Stimulus is everything the session drove so far, for a Verilator
// replay (verify.CrossCheck); nil for a session opened WithoutStimulus.
func (s *Session) Stimulus() *stim.Stimulus {
	if s.h.opt.NoStimulus {
		return nil
	}
	return s.h.rec.Stimulus()
}

// Close ends the waveform, if one is written: it appears under its name
// whole when every run of the session succeeded, and not at all
// otherwise.
func (s *Session) Close() error {
	if s.vcd == nil {
		return nil
	}
	tmp := s.vcd.Name()
	err := s.h.rec.Sim.CloseVCD()
	if cerr := s.vcd.Close(); err == nil {
		err = cerr
	}
	s.vcd = nil
	if err == nil && !s.failed {
		err = os.Rename(tmp, s.vcdPath)
	}
	if err != nil || s.failed {
		os.Remove(tmp)
	}
	if err != nil {
		return fmt.Errorf("host: waveform %s: %w", s.vcdPath, err)
	}
	return nil
}
