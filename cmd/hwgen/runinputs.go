package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// inputsFlags run a folder of inputs through the host pipeline.
type inputsFlags struct {
	Inputs string `help:"Run every float32 .npy file in DIR (sorted by name, each of the model input's shape) through the host pipeline (see --batch; default 1 image per batch); --out DIR then receives the dequantized logits of each under its input's file name. Calibrated on --calib, or on the first inputs (up to 100)." type:"existingdir" placeholder:"DIR"`
}

// maxAutoCalib is how many of --inputs calibrate when --calib is not given.
const maxAutoCalib = 100

// checkInputs rejects flags that do not go with --inputs.
func (c *runCmd) checkInputs() error {
	if c.Inputs == "" {
		return nil
	}
	switch {
	case c.Data != "":
		return usagef("--inputs: not with --data (give one source of inputs)")
	case len(c.Input) > 0:
		return usagef("--inputs: not with --input (give one source of inputs)")
	case c.Engine == "interp":
		return usagef("--inputs: needs --engine go or verilator (the pipeline's device is the Go simulator)")
	case c.VCD != "":
		return usagef("--vcd: not with --inputs (a session's waveform would hold every batch); use --timeline")
	case c.Batch < 0:
		return usagef("--batch %d: give a positive batch size", c.Batch)
	}
	return nil
}

// runInputs runs every .npy file of --inputs through the pipeline and
// writes the logits to --out. Every input is read and checked before
// anything runs; the outputs are written only when the run completes, each
// file whole.
func (c *runCmd) runInputs(cfg npu.Config) error {
	m, shape, err := c.loadModel()
	if err != nil {
		return err
	}
	names, images, err := readInputs(c.Inputs, c.inputName, shape)
	if err != nil {
		return err
	}
	var calib []*onnx.Array
	for _, x := range images {
		if len(calib) < maxAutoCalib && finite(x.Data) {
			calib = append(calib, x) // an input with a NaN fails in the pipeline, not here
		}
	}
	if len(calib) == 0 && len(c.Calib) == 0 {
		return usagef("--inputs %s: no input without NaN or infinity to calibrate on; give --calib", c.Inputs)
	}
	note := fmt.Sprintf("on the first %d of the inputs", len(calib))
	if len(c.Calib) > 0 {
		if calib, note, err = c.calibration(nil, shape); err != nil {
			return err
		}
	}
	printModel(os.Stdout, c.Model, m, shape)
	c.printWeights(os.Stdout)
	fmt.Printf("inputs    %d .npy files in %s\n", len(images), shown(c.Inputs))
	fmt.Printf("calibrate %s\n", note)
	opts, err := c.lowerOptions()
	if err != nil {
		return err
	}
	net, err := lower.Quantize(m, calib, cfg, opts...)
	if err != nil {
		return modelErr(c.Model, err)
	}
	printLayers(os.Stdout, net, c.Layers)
	if c.Batch == 0 {
		c.Batch = 1
	}
	rs, err := c.pipelineRun(cfg, net, images)
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range rs {
		if r.Err != nil {
			failed++
			fmt.Fprintf(os.Stderr, "hwgen: %s: %v\n", names[r.Index], r.Err)
			continue
		}
		fmt.Printf("top-1     %s: class %d\n", names[r.Index], r.Class)
	}
	if c.Out != "" {
		written := 0
		for _, r := range rs {
			if r.Err == nil {
				if err := writeFloatNPY(filepath.Join(c.Out, names[r.Index]), r.Logits); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
				written++
			}
		}
		fmt.Printf("results   %d logits files (float32, dequantized) in %s\n", written, c.Out)
	}
	return c.verdict(net, len(rs), failed)
}

// readInputs reads the float32 .npy files of dir in name order, each of
// the given shape (the model's input named input); any bad file is the
// caller's to fix.
func readInputs(dir, input string, shape []int) ([]string, []*onnx.Array, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--inputs: %w", err)}
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".npy") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return nil, nil, usagef("--inputs %s: no .npy files there", dir)
	}
	images := make([]*onnx.Array, len(names))
	for i, name := range names {
		x, err := readFloatNPY(filepath.Join(dir, name), func(got []int) error {
			if !slices.Equal(got, shape) {
				return usagef("--inputs: %s has shape %v; %s", name, got, needs(input, shape))
			}
			return nil
		})
		if err != nil {
			return nil, nil, usageIn("--inputs", err)
		}
		images[i] = x
	}
	return names, images, nil
}

// finite reports whether every value is a number.
func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
