package main

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"
	"unicode"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/host"
)

// This file is hwgen explore --model: the sweep's workload is a real
// network instead of one hwgen sim operation. At every point the model is
// quantized for that NPU (calibrated on seeded random inputs, as hwgen run
// does without --calib), compiled and run on the Go simulator, whose
// output must equal the compiler's reference machine bit for bit; its
// cycles and MAC utilization are the point's.

// exploreModel is the network of a sweep, as a result file records it.
type exploreModel struct {
	Path          string  `json:"path"`
	RandomWeights *uint64 `json:"random_weights,omitempty"`
	InputSeed     uint64  `json:"input_seed"`
	Calib         int     `json:"calib"`
}

// load reads the model, fills its weights when asked, and makes its
// seeded input and calibration set.
func (e exploreModel) load() (*onnx.Model, *onnx.Array, []*onnx.Array, error) {
	m, err := onnx.LoadFile(e.Path)
	if err != nil {
		return nil, nil, nil, usageError{fmt.Errorf("--model: %w", err)}
	}
	if err := m.Check(onnx.FloatOps); err != nil {
		return nil, nil, nil, modelErr(e.Path, err)
	}
	if _, err := (randomFlags{RandomWeights: e.RandomWeights}).randomize(m); err != nil {
		return nil, nil, nil, modelErr(e.Path, err)
	}
	shape, err := inputShape(m)
	if err != nil {
		return nil, nil, nil, modelErr(e.Path, err)
	}
	calib, _ := randomCalibration(shape, e.InputSeed, e.Calib)
	return m, randomInput(shape, e.InputSeed), calib, nil
}

// check loads the model once before the sweep, so that a model hwgen
// cannot read or lower on the base configuration is a usage error, not a
// table of invalid points.
func (e exploreModel) check(base npu.Config) error {
	m, x, calib, err := e.load()
	if err != nil {
		return err
	}
	net, err := lower.Quantize(m, calib, base, lower.Int32Output())
	if err != nil {
		return modelErr(e.Path, err)
	}
	if x, err = firstImage(net, m, x); err != nil {
		return modelErr(e.Path, err)
	}
	if _, err := net.Graph(x); err != nil {
		return modelErr(e.Path, err)
	}
	return nil
}

// runModel fills rec with the model's run on the point's NPU; a point
// whose NPU cannot hold or run the model is invalid.
func (a exploreArgs) runModel(cfg npu.Config, rec *exploreRecord) error {
	m, x, calib, err := a.Model.load()
	if err != nil {
		return err
	}
	invalid := func(err error) error {
		rec.Invalid = err.Error()
		fmt.Fprintf(os.Stderr, "  invalid: %s\n", rec.Invalid)
		return nil
	}
	net, err := lower.Quantize(m, calib, cfg, lower.Int32Output())
	if err != nil {
		return invalid(err)
	}
	if x, err = firstImage(net, m, x); err != nil {
		return invalid(err)
	}
	g, err := net.Graph(x)
	if err != nil {
		return invalid(err)
	}
	prog, err := compiler.CompileWith(cfg, g, growExt)
	if err != nil {
		return invalid(fmt.Errorf("compile: %w", err))
	}
	want, _, err := compiler.Interpret(prog)
	if err != nil {
		return fmt.Errorf("reference machine: %w", err)
	}
	t0 := time.Now()
	res, err := host.Run(cfg, prog, host.WithoutStimulus())
	if err != nil {
		return fmt.Errorf("simulation: %w", err)
	}
	out := net.Output()
	if err := same(out, "the reference machine", want[out], "the NPU", res.Outputs[out]); err != nil {
		return errors.New(err.Error())
	}
	rec.Cycles, rec.Ideal, rec.Utilization, rec.MACs, rec.Skipped = res.Cycles, res.Ideal, res.Utilization(), res.MACs, res.Skipped
	fmt.Fprintf(os.Stderr, "  %d cycles, %s MAC utilization, equal to the reference machine (simulated in %v)\n",
		rec.Cycles, rec.utilization(), time.Since(t0).Round(time.Millisecond))
	return nil
}

// anySet names the first operation flag given (the zero value of each is
// "not given"), or "".
func (f tensorFlags) anySet() string {
	v := reflect.ValueOf(f)
	for i := 0; i < v.NumField(); i++ {
		if !v.Field(i).IsZero() {
			return "--" + kebab(v.Type().Field(i).Name)
		}
	}
	return ""
}

// kebab is a flag's name from its field's, as kong derives it (Cout →
// cout, QueuePerBand → queue-per-band).
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// describe is the workload line of the table.
func (e exploreModel) describe() string {
	weights := "its own weights"
	if e.RandomWeights != nil {
		weights = fmt.Sprintf("random weights seed %d", *e.RandomWeights)
	}
	return fmt.Sprintf("model %s (%s; a random input uniform in [0,1), seed %d, calibrated on %d more, seeds %d..%d)",
		e.Path, weights, e.InputSeed, e.Calib, e.InputSeed+1, e.InputSeed+uint64(e.Calib))
}

// firstImage is x's first image for a model of batch N > 1 (the program
// is one image's, each image runs it in turn, so a point's cycles are per
// image), else x.
func firstImage(net *lower.Net, m *onnx.Model, x *onnx.Array) (*onnx.Array, error) {
	if net.Batch() == 1 {
		return x, nil
	}
	name := m.Graph.Inputs[0].Name
	sets, err := net.Images(map[string]*onnx.Array{name: x})
	if err != nil {
		return nil, err
	}
	return sets[0][name], nil
}
