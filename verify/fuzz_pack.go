package verify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

// A Verilator build costs seconds to minutes, a random design's simulation
// milliseconds: checking designs one build each spends nearly all the time
// compiling. Pack puts n designs side by side under one top (design j's
// ports renamed p<j>_<port>, its instance d<j>, every design on the shared clock and reset)
// and cross-checks them in one build, one lint and one run.

// PackTopName is the top module of the pack of designs first..first+n-1.
func PackTopName(seed uint64, n int) string { return fmt.Sprintf("fuzzpack%d_%d", seed, n) }

// packPort is design j's port in the pack.
func packPort(j int, port string) string { return fmt.Sprintf("p%d_%s", j, port) }

// PackResult is a checked pack: per design, its coverage and its output
// ports; and the build's result.
type PackResult struct {
	Coverage []*Coverage
	Outputs  []int
	Result   *Result // nil with LintOnly
}

// Pack cross-checks designs first … first+n−1 of the campaign in one
// build. A difference names
// the design whose output differed (a *FuzzError for its seed, whose
// message says how to rerun the pack); a lint warning or build failure
// names the pack's first seed.
func (fc FuzzCampaign) Pack(first, n int) (*PackResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("fuzz: a pack of %d designs", n)
	}
	seed := fc.Seed + uint64(first)
	fail := func(index int, dir string, err error) error {
		return &FuzzError{Seed: fc.Seed + uint64(index), Cycles: fc.Cycles, Index: index, Design: fc.Design, Dir: dir,
			Err: fmt.Errorf("%w (in the pack of designs %d..%d: reproduce with --seed %d --count %d --pack %d)", err, first, first+n-1, seed, n, n)}
	}
	top := hdl.NewModule(PackTopName(seed, n))
	covs := make([]*Coverage, n)
	outputs := make([]int, n)
	for j := range n {
		m, constructs := randomDesign(seed+uint64(j), fc.Design)
		d, err := hdl.Elaborate(m)
		if err != nil {
			return nil, fail(first+j, "(none)", fmt.Errorf("the generator built an invalid design (a fuzzer bug): %w", err))
		}
		covs[j] = NewCoverage()
		covs[j].AddDesign(d)
		covs[j].addConstructs(constructs)
		inst := top.Instance(fmt.Sprintf("d%d", j), m)
		for _, p := range m.Ports {
			switch p.Kind {
			case hdl.Input:
				inst.Connect(p.Name, top.Input(packPort(j, p.Name), p.Type))
			case hdl.Output:
				top.Output(packPort(j, p.Name), p.Type).Set(inst.Out(p.Name))
				outputs[j]++
			}
		}
	}
	d, err := hdl.Elaborate(top)
	if err != nil {
		return nil, fail(first, "(none)", fmt.Errorf("the pack does not elaborate (a fuzzer bug): %w", err))
	}
	opt := fc.Check
	// The build is a pack's whole cost: no VCD support (on a difference the
	// Go side still writes its waveform) and -O0 (the model runs a few
	// hundred cycles). The memory-access flags stay, for their --flatten:
	// Verilator 5.006 both fails to compile some hierarchical fuzz designs
	// and disagrees on others unless it flattens them (BENCHMARKS.md, "Fuzz
	// coverage"; TestPackAgainstVerilator).
	opt.Build.NoTrace, opt.Build.NoMemoryAccess = true, false
	if opt.Build.OptLevel == 0 {
		opt.Build.OptLevel = -1
	}
	keep := opt.Dir != ""
	if keep {
		opt.Dir = filepath.Join(opt.Dir, fmt.Sprintf("pack-%d-%d", seed, n))
	} else if opt.Dir, err = os.MkdirTemp("", "hwgen-fuzzpack-"); err != nil {
		return nil, err
	}
	if err := lintDesign(d, filepath.Join(opt.Dir, "rtl")); err != nil {
		return nil, fail(first, opt.Dir, err)
	}
	if fc.LintOnly {
		if !keep {
			os.RemoveAll(opt.Dir)
		}
		for _, c := range covs {
			c.Designs = 1
		}
		return &PackResult{Coverage: covs, Outputs: outputs}, nil
	}
	res, err := CrossCheck(d, stim.Random(d, fc.Cycles, seed), opt)
	if err != nil {
		var mm *Mismatch
		if errors.As(err, &mm) {
			if j, ok := packIndex(mm.Port, n); ok {
				return nil, fail(first+j, opt.Dir, err)
			}
		}
		return nil, fail(first, opt.Dir, err)
	}
	if !keep {
		os.RemoveAll(opt.Dir)
	}
	for _, c := range covs {
		c.Designs, c.Cycles = 1, res.Cycles
	}
	return &PackResult{Coverage: covs, Outputs: outputs, Result: res}, nil
}

// packIndex is the design a mismatch's port (p<j>_…) or memory path
// (… .d<j>. …) belongs to.
func packIndex(where string, n int) (int, bool) {
	where = strings.TrimPrefix(where, "memory ")
	for _, seg := range strings.FieldsFunc(where, func(r rune) bool { return r == '.' || r == '[' }) {
		if rest, ok := strings.CutPrefix(seg, "p"); ok || strings.HasPrefix(seg, "d") {
			if !ok {
				rest = seg[1:]
			}
			num, _, _ := strings.Cut(rest, "_")
			if j, err := strconv.Atoi(num); err == nil && j >= 0 && j < n {
				return j, true
			}
		}
	}
	return 0, false
}
