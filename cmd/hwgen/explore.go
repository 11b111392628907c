package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler/multi"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/ppa"
	"github.com/hwgen/hwgen/workload"
)

type exploreCmd struct {
	tensorFlags
	Seed   uint64   `help:"Seed of the random tensors; every point runs the same tensors." default:"1"`
	Config string   `help:"Start every point from this JSON NPU configuration instead of the defaults (fields left out keep their defaults)." type:"existingfile" placeholder:"FILE"`
	Set    []string `help:"Sweep one field of the NPU configuration (see 'hwgen config') over comma-separated values, e.g. --set rows=4,8,16; one value just sets the field. Repeat for more fields: the sweep is the product of all lists." sep:"none" placeholder:"FIELD=V1,V2,..."`
	Target string   `help:"Where area and timing are measured: generic (Yosys cells, flip-flops, memory bits, logic depth), ice40-hx8k or ice40-up5k (LUT4, flip-flops, BRAM, DSP, median Fmax after nextpnr-ice40)." default:"generic"`
	Seeds  *int     `help:"FPGA targets: place and route with placer seeds 1..N and report the median Fmax. Default 4." placeholder:"N"`
	Freq   *float64 `help:"FPGA targets: the frequency (MHz) nextpnr's timing-driven placement aims at. Default 100." placeholder:"MHZ"`
	NoPPA  bool     `name:"no-ppa" help:"Only simulate: cycles and MAC utilization, no synthesis (seconds instead of minutes)."`
	JSON   bool     `name:"json" help:"Print the points as a JSON array with all their figures instead of the table."`
	Model  string   `help:"Sweep a float ONNX model instead of one operation: at every point it is quantized for that NPU (calibrated on --random-calib seeded random inputs), compiled and run on the Go simulator on a seeded random input (--input-seed), checked against the reference machine bit for bit. A model of batch N > 1 runs its first image (the program is one image's). The operation flags do not go with it." type:"existingfile" placeholder:"FILE"`
	randomFlags
	shardFlags
}

func (c *exploreCmd) Help() string {
	return `Sweeps NPU configurations for one workload and tabulates, per point, the
cycles and MAC utilization of the workload on the Go simulator (checked
against the golden model, as hwgen sim does) beside the area and timing of
the NPU from hwgen ppa's synthesis (hwgen ppa --top npu).

What is swept: each --set FIELD=V1,V2,... lists values of one field of the
NPU configuration (see 'hwgen config'); one value just sets the field. The
points are the product of the lists, the first --set varying slowest, the
last fastest. A field goes in one --set only and each value once (a repeat is
an error). --config FILE is the base every point starts from. The workload
flags are hwgen sim's; every point runs the same seeded tensors, and a conv2d
on several engines (--set engines=2,4) is split into equal row bands.

  hwgen explore --op gemm --m 64 --k 64 --n 64 --set rows=4,8,16 --set cols=4,8,16 --no-ppa
  hwgen explore --model frontend/onnx/testdata/mnist-7.onnx --set planar_lanes=1,2,4,16 --no-ppa
  hwgen explore --model frontend/onnx/testdata/light/light_squeezenet.onnx --random-weights 1 \
      --set planar_lanes=4,16 --set psum_read_port=false,true --no-ppa
  hwgen explore --m 16 --k 16 --n 16 --set rows=2,4 --set cols=2 \
      --set state_depth=64 --set psum_depth=64 --set weight_depth=64

The table has a column per field that varies, cycles, MAC utilization and
the target's figures: generic: cells, flip-flops, memory bits, logic depth;
ice40-hx8k, ice40-up5k: LUT4, flip-flops, BRAM, DSP, median Fmax. A point
whose configuration the NPU rejects (cols above rows, a line buffer deeper
than the state buffer, too little external memory for the inputs, ...) stays
in the table as "invalid: why"; when no point is valid the sweep is refused
(exit status 2). A design too large for the FPGA keeps its synthesis counts
and says "does not fit ..." (even a 2×1 NPU with 16-deep buffers does not
fit an iCE40). A result that differs from the golden model stops the sweep
naming the point (exit status 1). The table goes to standard output,
progress to standard error; --json prints every figure instead.

Cost: simulating a small workload takes well under a second a point.
Synthesis is what takes time: about 35 s of CPU per point on the generic
target for a 2×2 NPU with 16-deep buffers (50 s with 64-deep ones), and
about 6 min of CPU and over 2 GB of memory for the default 16×16 NPU
(400,000 cells); FPGA targets add synth_ice40 and a place-and-route run
per seed. Sweep cycles with --no-ppa first, keep buffers small with ppa,
and spread a long sweep over processes with --shard i/N --result FILE
('hwgen merge' of the files prints the table of the whole sweep).`
}

// exploreCommand names the sweep in result files.
const exploreCommand = "explore"

// exploreArgs decide the sweep's table.
type exploreArgs struct {
	Workload workload.Workload `json:"workload"`
	Base     npu.Config        `json:"base"` // the defaults with --config laid over them
	Sweep    sweep             `json:"sweep"`
	Target   string            `json:"target"`
	Seeds    int               `json:"seeds"`
	FreqMHz  float64           `json:"freq_mhz"`
	NoPPA    bool              `json:"no_ppa"`
	JSON     bool              `json:"json"`
	Model    *exploreModel     `json:"model,omitempty"` // --model: the network swept instead of Workload
}

// explorePoint is one planned point: its configuration, and why it
// cannot run, if it cannot.
type explorePoint struct {
	set     []string // FIELD=VALUE of every swept field
	cfg     npu.Config
	w       workload.Workload
	given   map[string]*golden.Tensor
	invalid string
}

func (c *exploreCmd) Run() error {
	if err := c.shardFlags.check(); err != nil {
		return err
	}
	if c.Model == "" {
		if err := c.checkSizes(); err != nil {
			return err
		}
		if err := c.checkOp(); err != nil {
			return err
		}
	} else if f := c.tensorFlags.anySet(); f != "" {
		return usagef("%s: not with --model (the model is the workload; its input is --input-seed's)", f)
	} else if err := c.randomFlags.check(); err != nil {
		return err
	}
	if c.NoPPA && c.Target != ppa.Generic {
		return usagef("--target %s: not with --no-ppa (the target is where the area is measured)", c.Target)
	}
	seeds, freq := 4, 100.0 // hwgen ppa's defaults
	for _, f := range []struct {
		flag string
		set  bool
	}{{"--seeds", c.Seeds != nil}, {"--freq", c.Freq != nil}} {
		if f.set && (c.NoPPA || c.Target == ppa.Generic) {
			return usagef("%s: only with an FPGA --target (allowed: %s)", f.flag, strings.Join(ppa.Targets()[1:], ", "))
		}
	}
	if c.Seeds != nil {
		seeds = *c.Seeds
	}
	if c.Freq != nil {
		freq = *c.Freq
	}
	if err := checkPPAFlags(c.Target, seeds, freq); err != nil {
		return err
	}
	sw, err := parseSweep(c.Set)
	if err != nil {
		return err
	}
	base, err := configure(npu.DefaultConfig, blockFlags{Config: c.Config})
	if err != nil {
		return err
	}
	var w workload.Workload
	var model *exploreModel
	if c.Model != "" {
		model = &exploreModel{Path: c.Model, RandomWeights: c.RandomWeights, InputSeed: c.InputSeed, Calib: c.RandomCalib}
		if err := model.check(base); err != nil {
			return err
		}
	} else if w, err = c.assemble(c.Seed); err != nil {
		return err
	}
	points, err := c.plan(sw, w, model != nil)
	if err != nil {
		return err
	}
	if !c.NoPPA {
		if err := findPPATools(c.Target); err != nil {
			return err
		}
	}
	args := exploreArgs{Base: base, Sweep: sw, Target: c.Target, NoPPA: c.NoPPA, JSON: c.JSON, Model: model}
	if model == nil {
		valid := slices.IndexFunc(points, func(p explorePoint) bool { return p.w.Op != "" }) // resolved: the same workload at every point
		args.Workload = points[valid].w
	}
	if !c.NoPPA && c.Target != ppa.Generic { // elsewhere they decide nothing
		args.Seeds, args.FreqMHz = seeds, freq
	}
	run, err := c.start(exploreCommand, args, len(points))
	if err != nil {
		return err
	}
	if c.JSON {
		run.banner(os.Stderr, "points")
	} else {
		run.banner(os.Stdout, "points")
	}
	var recs []exploreRecord
	for i := run.items.First; i < run.items.End; i++ {
		p := points[i]
		var label []string
		for _, k := range sw.shown() {
			label = append(label, p.set[k])
		}
		fmt.Fprintf(os.Stderr, "point %d/%d: %s\n", i+1, len(points), strings.Join(label, " "))
		rec, err := args.runPoint(p)
		if err != nil {
			return run.finish(fmt.Errorf("point %d/%d (%s): %w", i+1, len(points), strings.Join(label, " "), err))
		}
		recs = append(recs, rec)
		if err := run.add(i, rec); err != nil {
			return err
		}
	}
	if err := args.print(os.Stdout, recs); err != nil {
		return err
	}
	return run.finish(nil)
}

// plan lays each point's values over the base configuration and
// validates it; a configuration the NPU rejects, or that cannot hold the
// workload's inputs, is an invalid point. Flags that are wrong for every
// point are usage errors.
func (c *exploreCmd) plan(sw sweep, w workload.Workload, model bool) ([]explorePoint, error) {
	var points []explorePoint
	for _, set := range sw.points() {
		p := explorePoint{set: set}
		var err error
		if p.cfg, err = configure(npu.DefaultConfig, blockFlags{Config: c.Config, Set: set}); err != nil {
			return nil, err
		}
		if err := p.cfg.Validate(); err != nil {
			p.invalid = err.Error()
			points = append(points, p)
			continue
		}
		if model { // the model is lowered at each point, in runModel
			points = append(points, p)
			continue
		}
		// The --in files are read as the point's elements.
		if p.w, p.given, err = c.resolve(w, p.cfg, true); err != nil { // the external memory is the point's, below
			return nil, usageError{fmt.Errorf("%s: %w", strings.Join(set, " "), err)}
		}
		if err := fitsExtMem(p.w, p.cfg); err != nil {
			p.invalid = err.Error()
		}
		points = append(points, p)
	}
	if !slices.ContainsFunc(points, func(p explorePoint) bool { return p.invalid == "" }) {
		return nil, usagef("--set: no point of the sweep is a valid configuration (allowed: at least one); the first, %s: %s", strings.Join(points[0].set, " "), points[0].invalid)
	}
	return points, nil
}

// runPoint simulates the workload on the point's NPU, checks it against
// the golden model and, unless --no-ppa, measures the NPU.
func (a exploreArgs) runPoint(p explorePoint) (exploreRecord, error) {
	rec := exploreRecord{Point: pointValues(p.set), NPU: p.cfg.Name(), Config: p.cfg, Invalid: p.invalid}
	if p.invalid != "" {
		fmt.Fprintf(os.Stderr, "  invalid: %s\n", p.invalid)
		return rec, nil
	}
	if a.Model != nil {
		if err := a.runModel(p.cfg, &rec); err != nil || rec.Invalid != "" {
			return rec, err
		}
		return a.measurePoint(p, rec)
	}
	job, err := compileJob(p.cfg, p.w, p.given, multi.Options{EqualArea: true})
	var ue usageError
	if errors.As(err, &ue) { // this configuration cannot run the workload
		rec.Invalid = err.Error()
		fmt.Fprintf(os.Stderr, "  invalid: %s\n", rec.Invalid)
		return rec, nil
	} else if err != nil {
		return rec, err
	}
	want, err := job.golden()
	if err != nil {
		return rec, err
	}
	t0 := time.Now()
	res, err := job.run()
	if err != nil {
		return rec, fmt.Errorf("simulation: %w", err)
	}
	if err := compareOutputs(want, res.Outputs); err != nil {
		return rec, err
	}
	rec.Cycles, rec.Ideal, rec.Utilization, rec.MACs, rec.Skipped = res.Cycles, res.Ideal, res.Utilization(), res.MACs, res.Skipped
	fmt.Fprintf(os.Stderr, "  %d cycles, %s MAC utilization, equal to the golden model (simulated in %v)\n",
		rec.Cycles, rec.utilization(), time.Since(t0).Round(time.Millisecond))
	return a.measurePoint(p, rec)
}

// measurePoint adds the point's area and timing, unless --no-ppa.
func (a exploreArgs) measurePoint(p explorePoint, rec exploreRecord) (exploreRecord, error) {
	if a.NoPPA {
		return rec, nil
	}
	t0 := time.Now()
	r, err := a.measure(p.cfg)
	var nf *ppa.NotFitError
	if errors.As(err, &nf) {
		rec.NotFit = nf.Error()
		if r != nil && r.Cells > 0 { // synthesized: its counts are still figures of the point
			rec.PPA = r
		}
		fmt.Fprintf(os.Stderr, "  %s (%v)\n", rec.NotFit, time.Since(t0).Round(time.Second))
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	rec.PPA = r
	var figs []string
	for i, c := range rec.ppaCells(a.Target) {
		figs = append(figs, ppaHeads(a.Target)[i]+" "+c)
	}
	fmt.Fprintf(os.Stderr, "  %s: %s (measured in %v)\n", a.Target, strings.Join(figs, ", "), time.Since(t0).Round(time.Second))
	return rec, nil
}

// measure synthesizes the NPU of cfg on the target in a directory of its
// own, removed afterwards. With a ppa.NotFitError the result holds what
// synthesis counted before place and route gave up.
func (a exploreArgs) measure(cfg npu.Config) (*ppa.Result, error) {
	m, err := npu.Build(cfg)
	if err != nil {
		return nil, fmt.Errorf("build the NPU: %w", err)
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		return nil, fmt.Errorf("elaborate the NPU: %w", err)
	}
	dir, err := os.MkdirTemp("", "hwgen-explore-")
	if err != nil {
		return nil, fmt.Errorf("ppa: %w", err)
	}
	defer os.RemoveAll(dir)
	r, err := ppa.Measure(d, ppa.Options{Target: a.Target, Seeds: a.Seeds, FreqMHz: a.FreqMHz, Dir: dir})
	if err != nil {
		return r, fmt.Errorf("ppa %s: %w", d.Top.Name, err)
	}
	return r, nil
}
