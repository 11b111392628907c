package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verilog"
)

// FuzzCampaign cross-checks Count random designs against Verilator: design
// i is RandomDesign(Seed+i), driven by Random(d, Cycles, Seed+i).
type FuzzCampaign struct {
	Seed   uint64
	Count  int
	Cycles int
	Design FuzzOptions
	// Check is passed to CrossCheck. With a Dir, each design gets the
	// sub-directory seed-S, which is kept; without, each design gets a
	// temporary directory, removed when the design agrees and kept when it
	// does not. Either holds the emitted Verilog in rtl/.
	Check Options
	// LintOnly stops after verilator --lint-only -Wall -fno-dfg -fno-split of each design: no
	// Verilator build, no simulation. Hundreds of designs a minute.
	LintOnly bool
	// Progress, if set, is called after each design that agrees.
	Progress func(FuzzStep)
}

// FuzzStep reports one design of a campaign that agreed with Verilator.
type FuzzStep struct {
	Index    int       // 0-based position in the campaign
	Seed     uint64    // the design's seed
	Design   string    // top module name
	Nodes    int       // operator nodes of the design
	Result   *Result   // nil with LintOnly
	Coverage *Coverage // cumulative, this design included
}

// FuzzError is a campaign failure: a mismatch, a lint warning or error
// (verilator --lint-only -Wall, or the -Wall build) or a design the
// generator got wrong. It names the seed to
// reproduce it with and unwraps to the underlying error (a *Mismatch for a
// simulation difference).
type FuzzError struct {
	Seed   uint64
	Cycles int
	Index  int
	Design FuzzOptions
	Dir    string // stimulus, outputs, waveforms and rtl/ of the failing design
	Err    error
}

func (e *FuzzError) Error() string {
	repro := fmt.Sprintf("hwgen verify fuzz --seed %d --count 1 --cycles %d", e.Seed, e.Cycles)
	if !reflect.DeepEqual(e.Design, FuzzOptions{}) {
		repro = fmt.Sprintf("verify.FuzzCampaign{Seed: %d, Count: 1, Cycles: %d, Design: %#v}.Run()", e.Seed, e.Cycles, e.Design)
	}
	return fmt.Sprintf("fuzz design %s (seed %d, #%d of the campaign): %v\n  files: %s\n  reproduce: %s",
		FuzzTopName(e.Seed), e.Seed, e.Index, e.Err, e.Dir, repro)
}

func (e *FuzzError) Unwrap() error { return e.Err }

// Run runs the campaign: Count designs of Cycles cycles each from Seed,
// calling Progress after each design that agrees. It stops at the first
// failure, returning a *FuzzError, and returns the coverage of the
// designs checked so far in both cases.
func (fc FuzzCampaign) Run() (*Coverage, error) {
	if fc.Count < 0 || fc.Cycles < 1 {
		return nil, fmt.Errorf("fuzz: need a count >= 0 and cycles >= 1, got %d and %d", fc.Count, fc.Cycles)
	}
	if _, err := toolchain.Find("verilator"); err != nil {
		return nil, err
	}
	total := NewCoverage()
	for i := 0; i < fc.Count; i++ {
		seed := fc.Seed + uint64(i)
		cov, res, err := fc.One(i)
		if err != nil {
			return total, err
		}
		total.Merge(cov)
		if fc.Progress != nil {
			fc.Progress(FuzzStep{Index: i, Seed: seed, Design: FuzzTopName(seed), Nodes: cov.Nodes, Result: res, Coverage: total})
		}
	}
	return total, nil
}

// One checks design index of the campaign alone (seed Seed+index) and
// returns its own coverage (one design) and Verilator's result (nil with
// LintOnly), or a *FuzzError. Run is One over 0..Count-1; a sharded
// campaign runs One over its part of that range.
func (fc FuzzCampaign) One(index int) (*Coverage, *Result, error) {
	seed := fc.Seed + uint64(index)
	fail := func(dir string, err error) error {
		return &FuzzError{Seed: seed, Cycles: fc.Cycles, Index: index, Design: fc.Design, Dir: dir, Err: err}
	}
	top, constructs := randomDesign(seed, fc.Design)
	d, err := hdl.Elaborate(top)
	if err != nil {
		return nil, nil, fail("(none)", fmt.Errorf("the generator built an invalid design (a fuzzer bug): %w", err))
	}
	cov := NewCoverage()
	cov.AddDesign(d)
	cov.addConstructs(constructs)

	opt := fc.Check
	keep := opt.Dir != ""
	if keep {
		opt.Dir = filepath.Join(opt.Dir, fmt.Sprintf("seed-%d", seed))
	} else if opt.Dir, err = os.MkdirTemp("", "hwgen-fuzz-"); err != nil {
		return nil, nil, err
	}
	// CrossCheck builds with -Wall, but designs with memories also get
	// --public-flat-rw, under which Verilator stays quiet about unused
	// signals: lint separately so every warning counts.
	if err := lintDesign(d, filepath.Join(opt.Dir, "rtl")); err != nil {
		return nil, nil, fail(opt.Dir, err)
	}
	if fc.LintOnly {
		if !keep {
			os.RemoveAll(opt.Dir)
		}
		cov.Designs = 1
		return cov, nil, nil
	}
	res, err := CrossCheck(d, stim.Random(d, fc.Cycles, seed), opt)
	if err != nil {
		return nil, nil, fail(opt.Dir, err)
	}
	if !keep {
		os.RemoveAll(opt.Dir)
	}
	cov.Designs = 1
	cov.Cycles = res.Cycles
	return cov, res, nil
}

// lintFlags are lintDesign's Verilator flags beyond --lint-only -Wall.
var lintFlags = []string{"-fno-dfg", "-fno-split"}

// lintDesign writes d's Verilog into dir and runs verilator --lint-only
// -Wall on it, with two of Verilator 5.006's optimizations off that crash
// on some valid designs in lint mode: DFG (off in every build too,
// VerilatorFlags: "Unsupported: 4-state numbers in this context") and
// split ("Internal Error: V3EmitCFunc.h: Wide Constant w/ no temp"; the
// builds, with --public-flat-rw and --flatten, do not hit it). Neither
// pass reports lint warnings, so the check loses nothing.
func lintDesign(d *hdl.Design, dir string) error {
	files := verilog.Emit(d)
	if err := verilog.WriteDir(dir, files); err != nil {
		return err
	}
	var vs []string
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".v") {
			vs = append(vs, f.Name)
		}
	}
	return toolchain.Lint(dir, d.Top.Name, vs, lintFlags...)
}
