package main

import (
	"fmt"
	"slices"
	"sort"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/compiler/multi"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/workload"
)

// npuJob is a workload compiled for one NPU configuration: what hwgen sim
// runs once and hwgen explore once per point of its sweep.
type npuJob struct {
	cfg  npu.Config
	w    workload.Workload
	in   map[string]*golden.Tensor // the input tensors: given, else random
	g    *compiler.Graph
	prog *compiler.Program
	mp   *multi.Program // a conv2d split among several engines, else nil
}

// compileJob draws the inputs not given and compiles w for cfg: a conv2d
// on several engines is split into row bands as split says (equal areas
// or balanced non-zero counts; merged into one queue, or a queue per
// band). A workload the configuration cannot run is a usage error.
func compileJob(cfg npu.Config, w workload.Workload, given map[string]*golden.Tensor, split multi.Options) (*npuJob, error) {
	if cfg.Engines > 1 && w.Op != "conv2d" {
		return nil, usagef("--engines %d: only a conv2d is split among several engines (%s runs on one: leave engines at 1)", cfg.Engines, w.Op)
	}
	if split.QueuePerBand && cfg.Engines > 1 && cfg.Queues < cfg.Engines {
		return nil, usagef("--queue-per-band: %d bands need %d task queues, queues = %d (add --set queues=%d)", cfg.Engines, cfg.Engines, cfg.Queues, cfg.Engines)
	}
	j := &npuJob{cfg: cfg, w: w, in: w.RandomInputsOf(cfg.ElemWidth, given)}
	var err error
	if j.g, err = w.Graph(j.in); err != nil {
		return nil, usageError{err}
	}
	if cfg.Engines > 1 {
		j.mp, err = multi.Conv2D(cfg, j.in["x"], j.in["w"], w.ConvParams(), split)
		if err == nil {
			j.prog = j.mp.Program
		}
	} else {
		j.prog, err = compiler.Compile(cfg, j.g)
	}
	if err != nil {
		return nil, usageError{fmt.Errorf("compile %s: %w", w.Op, err)}
	}
	return j, nil
}

// golden is what the job's outputs must be: the golden models of its
// graph at the configuration's widths.
func (j *npuJob) golden() (map[string]*golden.Tensor, error) { return j.g.Reference(j.cfg.Slice()) }

// run runs the program on the Go simulator; the result's outputs are the
// workload's (a split conv2d's bands stitched into one tensor). Errors of
// the simulation are host.Run's, unwrapped.
func (j *npuJob) run(opts ...host.Option) (*host.Result, error) {
	res, err := host.Run(j.cfg, j.prog, opts...)
	if err != nil {
		return nil, err
	}
	if j.mp != nil {
		y, err := j.mp.Stitch(res.Outputs)
		if err != nil {
			return res, fmt.Errorf("stitch: %w", err)
		}
		res.Outputs = map[string]*golden.Tensor{j.mp.Name: y}
	}
	return res, nil
}

// outputNames are the names of the outputs, sorted.
func outputNames(want map[string]*golden.Tensor) []string {
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// compareOutput is nil when output n equals the golden model, else FAIL
// with its first wrong element.
func compareOutput(n string, want, got map[string]*golden.Tensor) error {
	w, g := want[n], got[n]
	if g == nil || !slices.Equal(w.Shape, g.Shape) {
		return fmt.Errorf("FAIL: output %s missing or of the wrong shape", n)
	}
	for i := range w.Data {
		if w.Data[i] != g.Data[i] {
			return fmt.Errorf("FAIL: %s%v = %d, golden model %d", n, unflatten(w.Shape, i), g.Data[i], w.Data[i])
		}
	}
	return nil
}

// compareOutputs is nil when every output equals the golden model.
func compareOutputs(want, got map[string]*golden.Tensor) error {
	for _, n := range outputNames(want) {
		if err := compareOutput(n, want, got); err != nil {
			return err
		}
	}
	return nil
}
