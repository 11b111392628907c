package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/export"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
)

type quantizeCmd struct {
	Model  string   `help:"ONNX model file (float32; the ops hwgen run takes)." type:"path" required:"" placeholder:"FILE"`
	Calib  []string `help:"Calibration inputs (float32 .npy, the input's shape; comma-separated or repeated). Default: the input alone, as hwgen run." placeholder:"FILE"`
	Input  []string `help:"The input: calibrated on without --calib, and the one --ref writes with the NPU's outputs for it (float32 .npy of the model input's shape); for a model of several inputs NAME=FILE for each (repeated). Default: test_data_set_0/input_0.pb (input_k.pb for input k) beside the model, as hwgen run." sep:"none" placeholder:"FILE"`
	Output string   `short:"o" help:"Write the quantized ONNX model to this file." type:"path" required:"" placeholder:"FILE"`
	Ref    string   `help:"Also write into this directory the input (input.npy; for a model of several inputs input_k.npy for input k, in the model's order) and the NPU's outputs for it by the compiler's reference machine (OUTPUT_int32.npy or OUTPUT_int8.npy, OUTPUT.npy dequantized), to compare ONNX Runtime with; for a model of a fixed batch N > 1, the same per image in DIR/image_k." type:"path" placeholder:"DIR"`
	randomFlags
	quantFlags
	blockFlags
}

func (c *quantizeCmd) Help() string {
	return `Quantizes a float ONNX model to int8 exactly as hwgen run does (same
calibration, same per-channel requantization, --config / --set for the NPU)
and writes it as a standard ONNX model (opset 13) that ONNX Runtime runs with
the NPU's integer arithmetic bit for bit: float input, quantized as the NPU's
input is; ConvInteger / MatMulInteger on int8; the NPU's requantization
(scale, bias, shift, rounding, ReLU, saturation) in exact double-precision
ops; int8 MaxPool; the output dequantized. Besides the float output it has
the int8 one, OUTPUT_int32 (with --int8-output OUTPUT_int8; frontend/export explains the
mapping and why it is exact).

A model of several inputs takes --input NAME=FILE for each (or the test data
set's input_k.pb beside the model, or seeded random inputs); --ref then
writes input_k.npy for input k, in the model's order, and the run.js command
lists them comma-separated. A model of a fixed batch N > 1 ([N,C,H,W]
input) is exported as one image's model ([1,...]); --ref then writes a
reference per image of the batch into DIR/image_k (its input, [1,...], and
its outputs, each image through the one program), with a run.js line each.

  hwgen quantize --model mnist-7.onnx -o mnist-7.int8.onnx --ref ref/
  node scripts/ort/run.js mnist-7.int8.onnx ref/input.npy \
      --expect Plus214_Output_0_int32=ref/Plus214_Output_0_int32.npy
  hwgen quantize --model two.onnx --input a=a.npy --input b=b.npy -o q.onnx --ref ref/`
}

func (c *quantizeCmd) Run() error {
	cfg, err := npuConfig(c.blockFlags)
	if err != nil {
		return err
	}
	if cfg.Engines > 1 {
		return usagef("engines = %d: a model runs on one neural engine (leave engines at 1)", cfg.Engines)
	}
	if err := export.CheckConfig(cfg); err != nil {
		return usageError{err}
	}
	if err := checkOutDir("-o", filepath.Dir(c.Output)); err != nil {
		return err
	}
	if c.Ref != "" {
		if err := checkOutDir("--ref", c.Ref); err != nil {
			return err
		}
	}
	ins := modelInputs(c.Model, inputFiles(c.Input), c.Calib, "", c.Config)
	if err := checkNoClobber(ins, append([]flagPath{{"-o", c.Output}}, inDir("--ref", c.Ref, "input.npy")...)); err != nil {
		return err
	}
	// The model, input and calibration set are read as hwgen run reads
	// them, so that the scales are the same.
	if err := c.randomFlags.check(); err != nil {
		return err
	}
	r := &runCmd{Model: c.Model, Calib: c.Calib, Out: c.Ref, Input: c.Input, randomFlags: c.randomFlags}
	if len(c.Input) == 0 && len(c.Calib) > 0 && c.Ref == "" && !exists(testInput(c.Model)) {
		r.Input = c.Calib[:1] // nothing runs on the input then; any will do
	}
	m, xs, calib, err := r.load()
	if err != nil {
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
	printLayers(os.Stdout, net, false)
	q, err := export.Net(net, cfg)
	if err != nil {
		return usageError{fmt.Errorf("--model %s: %w", c.Model, err)}
	}
	b, err := proto.Marshal(q)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := writeFileAtomic(c.Output, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	fmt.Printf("exported  %s: opset %d, %d nodes (%s), %d bytes\n", shown(c.Output), export.Opset, len(q.Graph.Node), opCounts(q.Graph), len(b))
	fmt.Printf("          input %s; outputs %s\n", values(q.Graph.Input), values(q.Graph.Output))
	if c.Ref == "" {
		return nil
	}
	return c.reference(cfg, net, xs)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// opCounts summarizes a graph's ops: "ConvInteger 2, MaxPool 2, ...",
// most frequent first.
func opCounts(g *onnxpb.GraphProto) string {
	n := map[string]int{}
	for _, node := range g.Node {
		n[node.GetOpType()]++
	}
	ops := make([]string, 0, len(n))
	for op := range n {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b string) int {
		if n[a] != n[b] {
			return n[b] - n[a]
		}
		return strings.Compare(a, b)
	})
	s := make([]string, len(ops))
	for i, op := range ops {
		s[i] = fmt.Sprintf("%s %d", op, n[op])
	}
	return strings.Join(s, ", ")
}

// values describes graph inputs or outputs: name, element type, shape.
func values(vs []*onnxpb.ValueInfoProto) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		tt := v.GetType().GetTensorType()
		var dims []int64
		for _, d := range tt.GetShape().GetDim() {
			dims = append(dims, d.GetDimValue())
		}
		s[i] = fmt.Sprintf("%s %s %v", v.GetName(), onnx.DType(tt.GetElemType()), dims)
	}
	return strings.Join(s, ", ")
}
