package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hwgen/hwgen/blocks/sparse"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/sparseconv"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host/sparserun"
	"github.com/hwgen/hwgen/verify"
)

// sparseConfig is the sparse engine's configuration: its defaults, then
// --config, --set and --units.
func (c *simCmd) sparseConfig() (sparse.Config, error) {
	cfg, err := configure(sparse.DefaultConfig, c.blockFlags)
	if err != nil {
		return cfg, err
	}
	if c.Units != 0 {
		cfg.Units = c.Units
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

// runSparse runs a conv2d workload on the sparse engine.
func (c *simCmd) runSparse() error {
	// The sparse engine's results are the int32 sums: nothing requantizes
	// them, so --shift and --relu would be ignored.
	for _, f := range []struct {
		flag string
		set  bool
	}{{"--engines", c.Engines != nil}, {"--timeline", c.Timeline != ""}, {"--vcd", c.VCD != ""}, {"--out", c.Out != ""},
		{"--shift", c.Shift != 0}, {"--relu", c.Relu}} {
		if f.set {
			return usagef("%s does not apply to --accel sparse (its results are the int32 sums of the convolution)", f.flag)
		}
	}
	cfg, err := c.sparseConfig()
	if err != nil {
		return err
	}
	w, given, err := c.workload()
	if err != nil {
		return err
	}
	if w.Op != "conv2d" {
		return usagef("--accel sparse: the sparse engine runs conv2d, not %s", w.Op)
	}
	// Random tensors at the narrower of the value and weight widths (at
	// most int8, as on the NPU), so both fit the engine's records.
	in := w.RandomInputsOf(min(cfg.ValueWidth, cfg.WeightWidth, 8), given)
	prog, err := c.compileSparse(cfg, w, in)
	if err != nil {
		return err
	}
	return c.runSparseProgram(w, prog, in)
}

// compileSparse compiles the conv2d workload w with inputs in for cfg.
func (c *simCmd) compileSparse(cfg sparse.Config, w compiler.Workload, in map[string]*golden.Tensor) (*sparseconv.Program, error) {
	split := sparseconv.Balanced
	if c.Split != "" {
		var err error
		if split, err = sparseconv.ParseSplit(c.Split); err != nil {
			return nil, usageError{err}
		}
	}
	conv := sparseconv.Conv{C: w.C, H: w.H, W: w.W, Cout: w.Cout, KH: w.Kernel, KW: w.Kernel, Stride: w.Stride, PadH: *w.Pad, PadW: *w.Pad}
	prog, err := sparseconv.Compile(cfg, conv, in["x"].Data, in["w"].Data, split)
	if err != nil {
		return nil, usageError{fmt.Errorf("compile conv2d for the sparse engine: %w", err)}
	}
	return prog, nil
}

// runSparseProgram runs prog, reports and checks it against the golden
// model.
func (c *simCmd) runSparseProgram(w compiler.Workload, prog *sparseconv.Program, in map[string]*golden.Tensor) error {
	cfg, conv := prog.Config, prog.Conv
	want, err := compiler.Conv2DRef(in["x"], in["w"], conv.Stride, conv.PadH, conv.PadW, golden.S(cfg.AccWidth))
	if err != nil {
		return err
	}
	fmt.Printf("workload  %s; zeros %d%% (%s)\n", describe(w), w.Zeros, spreadName(w.Spread))
	fmt.Printf("engine    %s: %d units × %d multipliers, %d pass(es) of %d output channels\n", sparse.Name(cfg), cfg.Units, cfg.Lanes, prog.Passes, cfg.Lanes)
	split := sparseconv.Balanced
	if c.Split == "equal-area" {
		split = sparseconv.EqualArea
	}
	reportSparseSplit(prog, split)

	t0 := time.Now()
	res, err := sparserun.Run(context.Background(), prog)
	if err != nil {
		return fmt.Errorf("simulation: %w", err)
	}
	wall := time.Since(t0)
	reportSparse(prog, res, wall)
	if c.Engine == "verilator" {
		vr, err := verify.CrossCheck(res.Design, res.Stimulus, verify.Options{})
		if err != nil {
			return err
		}
		fmt.Printf("verilator agrees: %d cycles × %d outputs (build %v, cached %v)\n", vr.Cycles, vr.Outputs, vr.BuildTime.Round(time.Millisecond), vr.Cached)
	}
	got := &golden.Tensor{Shape: want.Shape, Data: res.Output}
	return verdict(map[string]*golden.Tensor{"y": want}, map[string]*golden.Tensor{"y": got})
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

// reportSparse prints cycles, each unit's busy share and non-zeros, the
// multiplications performed against the dense MACs, and the imbalance of
// the units' finishing times.
func reportSparse(p *sparseconv.Program, r *sparserun.Result, wall time.Duration) {
	fmt.Printf("cycles    %d (weight lists and tables: the first %d)\n", r.Cycles, r.WeightCycles)
	var parts []string
	var mults, want uint64
	first, last := r.Cycles, 0
	for i, u := range r.Units {
		parts = append(parts, fmt.Sprintf("u%d %.1f%% (stall %.1f%%, %d non-zeros, done at %d)", i, pct(u.Busy, r.Cycles), pct(u.Stall, r.Cycles), u.NNZ, u.Finished))
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
	fmt.Printf("speed     %v wall, %.0f simulated cycles/s\n", wall.Round(time.Millisecond), float64(r.Cycles)/wall.Seconds())
}

// pickSparse decides --accel auto for a conv2d compiled for the NE as
// dense: the sparse program when its estimated cycles (each unit's
// non-zero inputs times the weight records they meet, plus read-outs)
// are below the NE program's ideal cycles (its MACs over the array's),
// nil otherwise. It prints the reason either way.
func (c *simCmd) pickSparse(w compiler.Workload, in map[string]*golden.Tensor, dense *compiler.Program) (*sparseconv.Program, error) {
	if w.Op != "conv2d" || c.Engines != nil && *c.Engines > 1 {
		fmt.Printf("accel     auto: npu (only a single-engine conv2d may go to the sparse engine)\n")
		return nil, nil
	}
	if c.Shift != 0 || c.Relu {
		fmt.Printf("accel     auto: npu (--shift or --relu asks for requantized int8 results; the sparse engine gives the int32 sums)\n")
		return nil, nil
	}
	cfg := sparse.DefaultConfig()
	if c.Units != 0 {
		cfg.Units = c.Units
		if err := cfg.Validate(); err != nil {
			return nil, usageError{fmt.Errorf("--units: %w", err)}
		}
	}
	var nnz int
	for _, v := range in["x"].Data {
		if v != 0 {
			nnz++
		}
	}
	density := 100 * float64(nnz) / float64(max(len(in["x"].Data), 1))
	sp, err := c.compileSparse(cfg, w, in)
	if err != nil {
		fmt.Printf("accel     auto: npu (the conv does not map onto the sparse engine: %v)\n", err)
		return nil, nil
	}
	est := sp.Cycles()
	pick, cmpWord := "npu", "not below"
	if est < dense.Ideal {
		pick, cmpWord = "sparse", "below"
	}
	fmt.Printf("accel     auto: %s (input density %.1f%%: an estimated %d cycles on the sparse engine %s, %d×%d, %s the NE's ideal %d)\n",
		pick, density, est, sparse.Name(cfg), cfg.Units, cfg.Lanes, cmpWord, dense.Ideal)
	if pick == "npu" {
		return nil, nil
	}
	return sp, nil
}
