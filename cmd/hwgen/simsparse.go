package main

import (
	"fmt"
	"strings"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/workload"
)

// withSparse is cfg with the sparse engine: --units as sparse_units, or
// the configuration's, else workload.DefaultSparseUnits.
func (c *simCmd) withSparse(cfg npu.Config) (npu.Config, error) {
	cfg, err := workload.SparseConfig(cfg, c.units())
	return cfg, c.unitsError(err)
}

// unitsError is a usage error of an NPU configuration with the sparse
// engine (naming --units when it was given), or nil.
func (c *simCmd) unitsError(err error) error {
	if err == nil {
		return nil
	}
	if c.Units != nil {
		return usageError{fmt.Errorf("--units: %w", err)}
	}
	return usageError{err}
}

// runSparse runs a conv2d workload on the NPU's sparse engine.
func (c *simCmd) runSparse() error {
	// The sparse engine's results are the int32 sums: nothing requantizes
	// them, so --shift and --relu would be ignored.
	for _, f := range []struct {
		flag string
		set  bool
	}{{"--engines", c.Engines != nil}, {"--out", c.Out != ""}, {"--shift", c.Shift != 0}, {"--relu", c.Relu}} {
		if f.set {
			return usagef("%s does not apply to --accel sparse (its results are the int32 sums of the convolution)", f.flag)
		}
	}
	cfg, err := npuConfig(c.blockFlags)
	if err != nil {
		return err
	}
	if cfg, err = c.withSparse(cfg); err != nil {
		return err
	}
	w, given, err := c.workload()
	if err != nil {
		return err
	}
	if w.Op != "conv2d" {
		return usagef("--accel sparse: the sparse engine runs conv2d, not %s", w.Op)
	}
	// Random tensors at the element width (at most int8, as on the NE).
	in := w.RandomInputsOf(min(cfg.ElemWidth, 8), given)
	prog, sp, err := c.compileSparse(cfg, w, in)
	if err != nil {
		return err
	}
	return c.runSparseProgram(cfg, w, prog, sp, in)
}

// sparseSplit is --split for the sparse engine (default balanced).
func (c *simCmd) sparseSplit() (sparseconv.Split, error) {
	if c.Split == "" {
		return sparseconv.Balanced, nil
	}
	s, err := sparseconv.ParseSplit(c.Split)
	if err != nil {
		return s, usageError{err}
	}
	return s, nil
}

// compileSparse compiles the conv2d workload w with inputs in for the
// sparse engine of cfg.
func (c *simCmd) compileSparse(cfg npu.Config, w workload.Workload, in map[string]*golden.Tensor) (*compiler.Program, *sparseconv.Program, error) {
	split, err := c.sparseSplit()
	if err != nil {
		return nil, nil, err
	}
	prog, sp, err := w.CompileSparse(cfg, in, split)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return prog, sp, nil
}

// runSparseProgram runs prog on the NPU, reports and checks it against
// the golden model; --timeline, --vcd and --engine verilator work as for
// the NE.
func (c *simCmd) runSparseProgram(cfg npu.Config, w workload.Workload, prog *compiler.Program, sp *sparseconv.Program, in map[string]*golden.Tensor) error {
	conv, scfg := sp.Conv, sp.Config
	want, err := golden.Conv2D(in["x"], in["w"], conv.Stride, conv.PadH, conv.PadW, golden.S(scfg.AccWidth))
	if err != nil {
		return err
	}
	fmt.Printf("workload  %s; zeros %d%% (%s)\n", describe(w), w.Zeros, spreadName(w.Spread))
	fmt.Printf("npu       %s\n", cfg.Name())
	fmt.Printf("engine    sparse: %d units × %d multipliers, %d pass(es) of %d output channels\n", scfg.Units, scfg.Lanes, sp.Passes, scfg.Lanes)
	fmt.Printf("compiled  %s\n", prog.Summary())
	split, _ := c.sparseSplit()
	reportSparseSplit(sp, split)

	res, err := c.simulate(prog.Ideal, func(opts ...host.Option) (*host.Result, error) { return host.Run(cfg, prog, opts...) })
	if err != nil {
		return err
	}
	reportSparse(sp, res)
	if err := afterRun(res, c.Timeline, c.VCD, c.Engine == "verilator"); err != nil {
		return err
	}
	return verdict(map[string]*golden.Tensor{"y": want}, res.Outputs)
}

func spreadName(s string) string {
	if s == "" {
		return "all"
	}
	return s
}

func reportSparseSplit(p *sparseconv.Program, split sparseconv.Split) {
	var parts []string
	for _, pt := range p.Plan.Parts {
		where := fmt.Sprintf("rows %v", pt.Rows.Out)
		if p.Plan.Cols > 1 {
			where += fmt.Sprintf(" cols %v", pt.Cols.Out)
		}
		parts = append(parts, fmt.Sprintf("%s (%d non-zeros)", where, pt.NNZ))
	}
	b := p.Plan.Balance
	fmt.Printf("split     %s: %s; non-zero imbalance %.1f%%", split, strings.Join(parts, ", "), 100*b.Imbalance)
	if split == sparseconv.Balanced && !b.Met {
		fmt.Printf(" (the %.0f%% threshold is not met: %s)", 100*b.Threshold, b.Reason)
	}
	fmt.Println()
}

// reportSparse prints cycles, the engines' busy shares, each unit's busy
// share and non-zeros, the multiplications performed against the dense
// MACs, and the imbalance of the units' finishing times.
func reportSparse(p *sparseconv.Program, r *host.Result) {
	fmt.Printf("cycles    %d (estimate %d); image load %d and read-back %d cycles not counted\n", r.Cycles, r.Ideal, r.LoadCycles, r.ReadCycles)
	var parts []string
	for _, e := range r.Engines {
		if e.Completed > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f%% (stall %.1f%%, %d tasks)", e.Name, pct(e.Busy, r.Cycles), pct(e.Stall, r.Cycles), e.Completed))
		}
	}
	fmt.Printf("busy      %s\n", strings.Join(parts, ", "))
	parts = nil
	var mults, want uint64
	first, last := r.Cycles, 0
	for i, u := range r.SparseUnits {
		parts = append(parts, fmt.Sprintf("u%d %.1f%% (stall %.1f%%, %d non-zeros, done at %d)", i, pct(u.Busy, r.Cycles), pct(u.Stall, r.Cycles), len(p.Units[i].Entries), u.Finished))
		mults += u.Mults
		want += uint64(p.Mults(i))
		first, last = min(first, u.Finished), max(last, u.Finished)
	}
	fmt.Printf("units     %s\n", strings.Join(parts, ", "))
	fmt.Printf("balance   the first unit done at %d, the last at %d (%.1f%% idle at the end)\n", first, last, 100*float64(last-first)/float64(max(last, 1)))
	c := p.Conv
	oh, ow := c.OutSize()
	dense := uint64(oh * ow * c.Cout * c.C * c.KH * c.KW)
	fmt.Printf("mults     %d performed (non-zero inputs × non-zero weights: %d expected), %.1f%% of the %d dense MACs\n", mults, want, pct(mults, int(dense)), dense)
	if mults != want {
		fmt.Printf("          the counters differ from the expected count\n")
	}
	fmt.Printf("speed     %v wall, %.0f simulated cycles/s\n", r.Wall.Round(1e6), float64(r.Cycles+r.LoadCycles+r.ReadCycles)/r.Wall.Seconds())
}

// pickSparse decides --accel auto for a conv2d compiled for the NE as
// dense (workload.PickAccel) and prints the choice with its reason: the
// sparse engine's configuration and programs, or nil programs for the NE.
func (c *simCmd) pickSparse(cfg npu.Config, w workload.Workload, in map[string]*golden.Tensor, dense *compiler.Program) (npu.Config, *compiler.Program, *sparseconv.Program, error) {
	split, err := c.sparseSplit()
	if err != nil {
		return cfg, nil, nil, err
	}
	run := workload.AccelRun{Requant: c.Shift != 0 || c.Relu, Units: c.units(), Split: split}
	if c.Engines != nil {
		run.Engines = *c.Engines
	}
	a, err := workload.PickAccel(cfg, w, in, dense, run)
	if err != nil {
		return cfg, nil, nil, c.unitsError(err)
	}
	fmt.Printf("accel     auto: %s\n", a)
	if !a.Sparse {
		return cfg, nil, nil, nil
	}
	return a.Config, a.Program, a.SparseProgram, nil
}
