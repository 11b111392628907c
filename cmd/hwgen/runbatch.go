package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"time"

	"github.com/hwgen/hwgen/app/infer"
	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/dataset"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/host/pipeline"
	"github.com/hwgen/hwgen/host/trace"
	"github.com/hwgen/hwgen/verify"
)

// batchFlags run a data set through the host pipeline in batches.
type batchFlags struct {
	Batch    int      `help:"With --data or --inputs, and --engine go or verilator (which then replays the whole session): run the images through the host pipeline (pre: quantize, exec: one simulated NPU kept across batches, post: dequantize and check against the reference machine) in batches of B images per device program (weights in device memory once, each image in its own region; of the two batch programs, images interleaved on half buffers or copies one after another, the one faster in simulation is kept). 0: with --data, one image at a time without the pipeline; with --inputs, batches of 1." default:"0" placeholder:"B"`
	ClockMHz *float64 `name:"clock-mhz" help:"With --batch: the NPU clock at which to state the simulated images per second, above 0. Default 1000." placeholder:"MHZ"`
	LockStep bool     `name:"lockstep" help:"With --batch: advance the pipeline's stages together, one period at a time, and print the period log (N batches through 3 stages take N+2 periods)."`
	Devices  int      `help:"With --batch: simulate N NPUs at once, each with its own pipeline and a share of the batches (consecutive ones); a host with N cores then simulates about N times the images per second. Each device's session is checked and, with --engine verilator, replayed on its own." default:"1" placeholder:"N"`
}

// runBatches is runData's pipeline mode: the test images in batches
// through app/infer, on one device session, with their accuracy.
func (c *runCmd) runBatches(cfg npu.Config, m *onnx.Model, net *lower.Net, test *dataset.Set) error {
	images := make([]*onnx.Array, test.Len())
	for i := range images {
		images[i] = test.Input(i)
	}
	rs, err := c.pipelineRun(cfg, net, images)
	if err != nil {
		return err
	}
	st := newDataStats(dataArgs{})
	failed := 0
	for _, r := range rs {
		if r.Err != nil {
			failed++
			fmt.Fprintf(os.Stderr, "hwgen: image %d: %v\n", r.Index, r.Err)
			continue
		}
		f, err := m.Graph.Run(map[string]*onnx.Array{net.Input(): images[r.Index]})
		if err != nil {
			return modelErr(c.Model, fmt.Errorf("float executor, test image %d: %w", r.Index, err))
		}
		rec := imageRecord{Label: test.Labels[r.Index]}
		rec.classes(f[net.Output()].Data, r.Logits.Data)
		st.add(rec)
	}
	st.report(os.Stdout)
	return c.verdict(net, len(rs), failed)
}

// pipelineRun compiles net for batches of --batch images and runs images
// through the host pipeline on one device session; it prints the
// pipeline's and the device's figures and returns every image's result
// (a failed batch's images carry its error).
func (c *runCmd) pipelineRun(cfg npu.Config, net *lower.Net, images []*onnx.Array) ([]infer.Result, error) {
	if err := c.checkDevices(len(images)); err != nil {
		return nil, err
	}
	model, err := infer.Compile(net, images[0], cfg, c.Batch)
	if err != nil {
		return nil, usageError{fmt.Errorf("compile a batch of %d for %s: %w", c.Batch, cfg.Name(), err)}
	}
	single, err := infer.Compile(net, images[0], cfg, 1)
	if err != nil {
		return nil, usageError{fmt.Errorf("compile for %s: %w", cfg.Name(), err)}
	}
	fmt.Printf("npu       %s\n", cfg.Name())
	fmt.Printf("compiled  a batch of %d: %s\n", c.Batch, model.Program.Summary())
	for _, cand := range model.Candidates {
		kept := ""
		if cand.Program == model.Program {
			kept = " (kept: the fewer cycles)"
		}
		fmt.Printf("candidate %s: %d cycles a batch%s\n", cand.Name, cand.Cycles, kept)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	mode := pipeline.FreeRunning
	if c.LockStep {
		mode = pipeline.LockStep
	}
	var hostOpts []host.Option
	if c.Engine != "verilator" {
		hostOpts = append(hostOpts, host.WithoutStimulus()) // a row per cycle, for a replay nobody asked for
	}
	rs, rep, err := model.Run(ctx, images, infer.Options{Check: true, Pipeline: pipeline.Options{Mode: mode}, Devices: c.Devices, Host: hostOpts})
	if err != nil {
		return nil, err
	}
	_, one, err := single.Run(ctx, images[:1], infer.Options{})
	if err != nil {
		return nil, err
	}
	for d, dev := range rep.Devices {
		if len(rep.Devices) > 1 {
			fmt.Printf("device %d  images %d..%d\n", d, dev.First, dev.First+dev.Images-1)
		}
		fmt.Print(dev.Stats.Summary(), "\n")
		if c.LockStep {
			if err := dev.Stats.WritePeriods(os.Stdout); err != nil {
				return nil, err
			}
		}
	}
	runs := rep.Runs()
	if full := firstRun(runs); full != nil && len(one.Runs()) > 0 && one.Runs()[0] != nil {
		alone := one.Runs()[0].Cycles
		gain, verb := 100*(1-float64(full.Cycles)/float64(c.Batch*alone)), "saves"
		if gain < 0 {
			gain, verb = -gain, "costs"
		}
		fmt.Printf("device    %d batches, %d cycles in all; a full batch of %d: %d cycles, %.0f per image; one image alone: %d cycles (batching %s %.1f%%)\n",
			len(runs), rep.Cycles(), c.Batch, full.Cycles, float64(full.Cycles)/float64(c.Batch), alone, verb, gain)
	}
	perDevice := ""
	if len(rep.Devices) > 1 {
		perDevice = fmt.Sprintf(" per device (%d devices)", len(rep.Devices))
	}
	fmt.Printf("speed     %.1f images/s simulated at %.0f MHz%s (%d cycles for %d images), %.2f images/s on this host (%v wall)\n",
		c.clockMHz()*1e6*float64(len(rs))/float64(max(rep.Cycles(), 1)), c.clockMHz(), perDevice, rep.Cycles(), len(rs),
		float64(len(rs))/rep.Wall.Seconds(), rep.Wall.Round(time.Millisecond))
	hidden, dma := dmaUnderNE(runs)
	fmt.Printf("overlap   %.1f%% of the DMA-in busy cycles fall while the NE is busy (%d of %d)\n", 100*float64(hidden)/float64(max(dma, 1)), hidden, dma)
	if c.Timeline != "" {
		if err := writeFileAtomic(c.Timeline, func(w io.Writer) error { return batchTrace(w, rep) }); err != nil {
			return nil, fmt.Errorf("--timeline: %w", err)
		}
		fmt.Printf("timeline  %s (host stages and the NPU's engines; open in https://ui.perfetto.dev)\n", c.Timeline)
	}
	if c.Engine == "verilator" {
		// A device's session is one recorded stimulus: every batch, with
		// the image load, replays at once.
		d, err := host.Design(cfg)
		if err != nil {
			return nil, err
		}
		for k, dev := range rep.Devices {
			st := dev.Session.Stimulus()
			fmt.Printf("verilator building and replaying the whole session of device %d: %d cycles...\n", k, len(st.Rows))
			cr, err := verify.CrossCheck(d, st, verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
			if err != nil {
				return nil, fmt.Errorf("verilator, device %d: %w", k, err)
			}
			fmt.Printf("verilator identical: %d outputs in each of %d cycles (build %v, run %v)\n", cr.Outputs, cr.Cycles,
				cr.BuildTime.Round(time.Millisecond), cr.VerilatorRun.Round(time.Millisecond))
		}
	}
	return rs, nil
}

// checkDevices refuses a --devices that leaves a device without a batch.
func (c *runCmd) checkDevices(images int) error {
	if c.Batch > images {
		return usagef("--batch %d is more than the %d images: give 1..%d", c.Batch, images, images)
	}
	if batches := (images + c.Batch - 1) / c.Batch; c.Devices < 1 || c.Devices > batches {
		return usagef("--devices %d: give 1 to %d (at most one device per batch: %d images in batches of %d)", c.Devices, batches, images, c.Batch)
	}
	return nil
}

// firstRun is the first full batch's device run, or nil.
func firstRun(runs []*host.Result) *host.Result {
	for _, r := range runs {
		if r != nil {
			return r
		}
	}
	return nil
}

// verdict is the end of a pipeline run: FAIL when an image failed.
func (c *runCmd) verdict(net *lower.Net, images, failed int) error {
	if failed > 0 {
		return fmt.Errorf("FAIL: %d of %d images failed (their batches; the others completed)", failed, images)
	}
	fmt.Printf("result    PASS: on each of the %d images the NPU's %s %s equals the reference machine's bit for bit\n", images, outKind(net), net.Output())
	return nil
}

// batchTrace writes each device's host stages and batch runs, each run
// drawn over its exec span, as one Chrome trace.
func batchTrace(w io.Writer, rep *infer.Report) error {
	f := &trace.File{}
	for d, dev := range rep.Devices {
		suffix := ""
		if len(rep.Devices) > 1 {
			suffix = fmt.Sprintf(" %d", d)
		}
		dev.Stats.AddTrace(f.Process("host" + suffix))
		npuProc := f.Process("npu" + suffix)
		exec := -1
		for i, s := range dev.Stats.Stages {
			if s.Name == "exec" {
				exec = i
			}
		}
		for _, sp := range dev.Stats.Spans {
			if sp.Stage != exec || sp.Failed || sp.Packet >= len(dev.Runs) || dev.Runs[sp.Packet] == nil {
				continue
			}
			res := dev.Runs[sp.Packet]
			res.AddTrace(npuProc, trace.Micros(sp.Start), trace.Micros(sp.End-sp.Start)/float64(max(res.Cycles, 1)))
		}
	}
	return f.Write(w)
}

// dmaUnderNE counts, over every batch's device run, the cycles the
// dma_in engine was busy and of those the ones the NE was busy too.
func dmaUnderNE(runs []*host.Result) (hidden, dma int) {
	for _, res := range runs {
		if res == nil {
			continue
		}
		busy := map[string][]bool{}
		for _, name := range []string{"dma_in", "ne"} {
			busy[name] = make([]bool, res.Cycles+1)
		}
		for _, s := range res.Timeline {
			if b, ok := busy[s.Engine]; ok {
				for c := max(s.Start, 0); c < s.End && c < len(b); c++ {
					b[c] = true
				}
			}
		}
		for c, d := range busy["dma_in"] {
			if d {
				dma++
				if busy["ne"][c] {
					hidden++
				}
			}
		}
	}
	return hidden, dma
}

// clockMHz is --clock-mhz, else 1000 MHz.
func (c *runCmd) clockMHz() float64 {
	if c.ClockMHz == nil {
		return 1000
	}
	return *c.ClockMHz
}

// checkBatchFlags refuses the pipeline's flags without --batch, and a
// clock that is not a positive frequency: a negative one printed
// negative images per second.
func (c *runCmd) checkBatchFlags() error {
	if c.ClockMHz != nil {
		if f := *c.ClockMHz; !(f > 0) || math.IsInf(f, 0) {
			return usagef("--clock-mhz %g is not allowed: give a clock above 0 MHz", f)
		}
	}
	if c.Batch != 0 {
		return nil
	}
	switch {
	case c.ClockMHz != nil:
		return usagef("--clock-mhz applies to --batch only (it states a pipeline's images per second)")
	case c.LockStep:
		return usagef("--lockstep applies to --batch only (it steps the pipeline's stages)")
	}
	return nil
}
