package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/sim"
)

// This file runs a model whose input has a fixed batch N > 1 ([N,C,H,W];
// lower.Net.Batch): the lowering is one image's, so the input is split
// into its N images (Net.Images), the net compiled once for one image,
// and the images run one after another through that one program — on
// the reference machine with the image's input written into the
// program's image, on a simulator through one simulated NPU kept across
// the images (host.Session: the weights loaded once, each run writing
// only its image's input), so that a Verilator replay covers the whole
// batch in one recording. Each image is checked bit for bit (the NPU
// against the reference machine, that against the golden models of the
// image's own graph), the dequantized outputs are joined into [N,...]
// (Net.Stack) and compared with the float executor's output of the
// whole batch; the quality figures are the batch's (StackValues).

// batchRun is what the images of a batch gave.
type batchRun struct {
	golds []map[string]*golden.Tensor // per image: the golden models' every lowered value
	raw   []*golden.Tensor            // per image: the checked output (NPU or reference machine)
	deqs  []*onnx.Array               // per image: raw dequantized
	runs  []*host.Result              // per image, on a simulator
}

// runImages is Run for a net of batch N > 1: xs holds the whole batch,
// floatOut the float executor's values of it.
func (c *runCmd) runImages(cfg npu.Config, net *lower.Net, xs, floatOut map[string]*onnx.Array) error {
	images, err := net.Images(xs)
	if err != nil {
		return modelErr(c.Model, err)
	}
	g, err := net.GraphOf(images[0])
	if err != nil {
		return modelErr(c.Model, err)
	}
	prog, err := compiler.CompileWith(cfg, g, growExt)
	if err != nil {
		return usageError{fmt.Errorf("compile %s for %s: %w", filepath.Base(c.Model), cfg.Name(), err)}
	}
	kind, outType := outKind(net), golden.S(cfg.ElemWidth)
	if net.Int32Output() {
		outType = compiler.Int32
	}
	printLayers(os.Stdout, net, c.Layers)
	fmt.Printf("npu       %s\n", cfg.Name())
	fmt.Printf("compiled  %s (one image's program)\n", prog.Summary())
	if w := prog.Config.ExtAddrWidth; w != cfg.ExtAddrWidth {
		fmt.Printf("ext mem   ext_addr_width %d → %d: %d lines of external memory for the program\n", cfg.ExtAddrWidth, w, prog.ExtLines)
	}
	n := len(images)
	fmt.Printf("batch     %d images (the input's first axis), one after another through that program on %s\n", n, c.engineName())
	b, err := c.runEach(cfg, net, prog, images)
	if err != nil {
		return err
	}
	out := net.Output()
	deq, err := net.Stack(b.deqs)
	if err != nil {
		return err
	}
	joined := &golden.Tensor{Shape: deq.Shape}
	for _, r := range b.raw {
		joined.Data = append(joined.Data, r.Data...)
	}
	if b.runs != nil {
		printLayerUse(os.Stdout, cfg.Rows, cfg.Cols, prog, b.runs, c.Layers)
		printBatchCycles(n, b.runs)
	}
	float := floatOut[out]
	if float == nil || !slices.Equal(float.Shape, deq.Shape) {
		return fmt.Errorf("the float executor's %s is not of the joined output's shape %v", out, deq.Shape)
	}
	compareImages(kind, float, deq, joined, net.OutputScale(), n)
	printQuality(os.Stdout, net, xs[net.Input()], net.StackValues(b.golds), floatOut, deq, c.Layers)
	if c.Out != "" {
		if err := writeFloatNPY(filepath.Join(c.Out, "logits.npy"), deq); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		raw := "logits_" + kind + ".npy"
		if err := writeNPY(filepath.Join(c.Out, raw), joined, outType); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Printf("results   %s (logits.npy, %s: the %d images' outputs joined, %v)\n", c.Out, raw, n, deq.Shape)
	}
	by := "the reference machine's %s %s %v equals the golden models'"
	if c.Engine != "interp" {
		by = "the NPU's %s %s %v equals the reference machine's and the golden models'"
	}
	fmt.Printf("result    PASS: on each of the %d images "+by+" bit for bit; joined %v\n", n, kind, out, b.raw[0].Shape, deq.Shape)
	return nil
}

// engineName says where the images run.
func (c *runCmd) engineName() string {
	switch c.Engine {
	case "interp":
		return "the reference machine"
	case "verilator":
		return "one simulated NPU (the Go simulator; the whole batch then replayed on Verilator)"
	}
	return "one simulated NPU (the Go simulator)"
}

// runEach runs every image: the golden models, the reference machine and,
// unless --engine interp, the simulated NPU; it prints a line per image
// and returns at the first image that differs (FAIL, located layer by
// layer).
func (c *runCmd) runEach(cfg npu.Config, net *lower.Net, prog *compiler.Program, images []map[string]*onnx.Array) (*batchRun, error) {
	var dev *batchDevice
	if c.Engine != "interp" {
		var err error
		if dev, err = c.newBatchDevice(cfg, prog, len(images)); err != nil {
			return nil, err
		}
		defer dev.close()
	}
	out := net.Output()
	b := &batchRun{}
	for k, im := range images {
		g, vals, err := net.GraphValuesOf(im)
		if err != nil {
			return nil, modelErr(c.Model, fmt.Errorf("image %d: %w", k, err))
		}
		gold, err := g.ReferenceOf(cfg, vals)
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", k, err)
		}
		in, err := imageInputs(net, prog, im)
		if err != nil {
			return nil, usageError{fmt.Errorf("image %d: %w", k, err)}
		}
		p := *prog
		p.Image = slices.Clone(prog.Image)
		for name, t := range in {
			if err := p.SetInput(name, t); err != nil {
				return nil, fmt.Errorf("image %d: %w", k, err)
			}
		}
		machine, _, err := compiler.Interpret(&p)
		if err != nil {
			return nil, fmt.Errorf("image %d: reference machine: %w", k, err)
		}
		got, ran, cycles := machine[out], "the reference machine", ""
		if dev != nil {
			res, err := dev.run(k, in)
			if err != nil {
				return nil, fmt.Errorf("image %d: simulation: %w", k, err)
			}
			if tamperNPU != nil {
				tamperNPU(res, false)
			}
			if err := same(out, "the reference machine", machine[out], "the NPU", res.Outputs[out]); err != nil {
				locate(os.Stdout, cfg, net, im, gold, true)
				return nil, fmt.Errorf("image %d: %w", k, err)
			}
			got, ran, cycles = res.Outputs[out], "the NPU", fmt.Sprintf("; %d cycles", res.Cycles)
			b.runs = append(b.runs, res)
		}
		if err := same(out, "the golden models", gold[out], ran, got); err != nil {
			locate(os.Stdout, cfg, net, im, gold, dev != nil)
			return nil, fmt.Errorf("image %d: %w", k, err)
		}
		deq, err := net.Dequantize(got)
		if err != nil {
			return nil, err
		}
		also := ""
		if dev != nil {
			also = " the reference machine's and"
		}
		fmt.Printf("image %-3d PASS: %s's %s equals%s the golden models'%s; top-1 %d\n", k, ran, out, also, cycles, onnx.Argmax(deq.Data))
		b.golds, b.raw, b.deqs = append(b.golds, gold), append(b.raw, got), append(b.deqs, deq)
	}
	if dev != nil {
		if err := dev.finish(c); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// imageInputs are one image's inputs quantized to the program's int8
// inputs, by name.
func imageInputs(net *lower.Net, prog *compiler.Program, im map[string]*onnx.Array) (map[string]*golden.Tensor, error) {
	in := map[string]*golden.Tensor{}
	for _, name := range net.Inputs() {
		if _, ok := prog.Input(name); !ok {
			continue // not read by the program: nothing to write
		}
		t, err := net.QuantizeInputOf(name, im[name])
		if err != nil {
			return nil, err
		}
		in[name] = t
	}
	return in, nil
}

// printBatchCycles prints the images' cycles: in all and per image.
func printBatchCycles(n int, runs []*host.Result) {
	total, load, read := 0, 0, 0
	lo, hi := runs[0].Cycles, runs[0].Cycles
	for _, r := range runs {
		total += r.Cycles
		load += r.LoadCycles
		read += r.ReadCycles
		lo, hi = min(lo, r.Cycles), max(hi, r.Cycles)
	}
	util := fmt.Sprintf("ideal %d an image: MAC utilization %.1f%%", runs[0].Ideal, 100*float64(runs[0].Ideal)*float64(n)/float64(max(total, 1)))
	if runs[0].Ideal == 0 {
		util = "no PE-array work"
	}
	fmt.Printf("cycles    %d for the %d images, %.0f an image (%d..%d; %s); loading the inputs (%d cycles) and reading back (%d) not counted\n",
		total, n, float64(total)/float64(n), lo, hi, util, load, read)
}

// batchDevice is the simulated NPU a batch's images run on: one session,
// the program's image loaded once, each run writing its image's inputs.
type batchDevice struct {
	sess        *host.Session
	stop        func() // ends the session's Ctrl-C context
	first, last *host.Result
}

// newBatchDevice opens the session, recording for Verilator and writing
// --vcd when asked (for about n runs of prog).
func (c *runCmd) newBatchDevice(cfg npu.Config, prog *compiler.Program, n int) (*batchDevice, error) {
	cycles := prog.Ideal * int64(n)
	opts := c.hostOptions(c.VCD, cycles)
	if c.Engine == "verilator" {
		if err := recordingMemory(filepath.Base(c.Model), cycles, int64(prog.ExtLines)); err != nil {
			return nil, err
		}
	} else {
		opts = append(opts, host.WithoutStimulus()) // a row per cycle, for a replay nobody asked for
	}
	intr, stop := interruptible()
	s, err := host.NewSession(cfg, prog, append(opts, intr)...)
	if err != nil {
		stop()
		if errors.Is(err, sim.ErrVCDScope) {
			return nil, usageError{fmt.Errorf("--vcd-scope: %w", err)}
		}
		return nil, fmt.Errorf("simulation: %w", err)
	}
	return &batchDevice{sess: s, stop: stop}, nil
}

// run runs image k's inputs.
func (d *batchDevice) run(k int, in map[string]*golden.Tensor) (*host.Result, error) {
	res, err := d.sess.Run(in)
	if err != nil {
		return nil, err
	}
	if k == 0 {
		d.first = res
	}
	d.last = res
	return res, nil
}

// close ends the session (a waveform is kept only when every run
// succeeded); it may be called again.
func (d *batchDevice) close() error {
	if d.sess == nil {
		return nil
	}
	err := d.sess.Close()
	d.stop()
	d.sess = nil
	return err
}

// finish ends the session and writes what was asked for: the waveform of
// every image, the first image's timeline, and the Verilator replay of
// the whole session.
func (d *batchDevice) finish(c *runCmd) error {
	if err := d.close(); err != nil {
		return fmt.Errorf("--vcd: %w", err)
	}
	if c.VCD != "" {
		vcdWritten(c.VCD)
	}
	if c.Timeline != "" {
		if err := writeFileAtomic(c.Timeline, d.first.WriteTrace); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
		fmt.Printf("timeline  %s (image 0: %d tasks; open in https://ui.perfetto.dev)\n", c.Timeline, len(d.first.Timeline))
	}
	if c.Engine == "verilator" {
		return afterRun(d.last, "", "", true) // the session's recording: every image
	}
	return nil
}
