package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// This file feeds hwgen run a model of several graph inputs: --input
// NAME=FILE for each, else the test data set's input_k.pb beside the
// model (k in the graph's input order), else seeded random inputs
// (input k of seed s + k·2^32, so that no two inputs share values).

// inputFiles are the files of --input values (FILE or NAME=FILE), for
// the clobber check.
func inputFiles(args []string) []string {
	files := make([]string, len(args))
	for i, a := range args {
		files[i] = a
		if _, f, ok := strings.Cut(a, "="); ok && !exists(a) {
			files[i] = f
		}
	}
	return files
}

// inputSeed is the seed of input k's random values for seed s.
func inputSeed(s uint64, k int) uint64 { return s + uint64(k)<<32 }

// loadInputs reads a value for each of m's graph inputs and the
// calibration sets, and prints what it read.
func (c *runCmd) loadInputs(m *onnx.Model) (*onnx.Model, map[string]*onnx.Array, []map[string]*onnx.Array, error) {
	var names []string
	shapes := map[string][]int{}
	for _, v := range m.Graph.Inputs {
		if v.Shape == nil {
			return nil, nil, nil, modelErr(c.Model, fmt.Errorf("graph input %q has no shape", v.Name))
		}
		s := make([]int, len(v.Shape))
		for i, d := range v.Shape {
			s[i] = max(int(d.Size), 1) // a symbolic batch size is 1
		}
		names, shapes[v.Name] = append(names, v.Name), s
	}
	all := strings.Join(names, ", ")
	if len(c.Calib) > 0 {
		return nil, nil, nil, usagef("--calib: files of one input; a model of several inputs (%s) calibrates on its inputs (random ones: on --random-calib further random sets)", all)
	}
	given := map[string]string{}
	for _, a := range c.Input {
		name, file, ok := strings.Cut(a, "=")
		switch {
		case !ok || shapes[name] == nil:
			return nil, nil, nil, usagef("--input %s: the model has inputs %s: give NAME=FILE for each", a, all)
		case given[name] != "":
			return nil, nil, nil, usagef("--input %s: input %s given twice", a, name)
		}
		given[name] = file
	}
	xs, sources := map[string]*onnx.Array{}, []string{}
	for k, name := range names {
		file, what := given[name], "--input "+name+"="
		if file == "" && len(given) > 0 {
			return nil, nil, nil, usagef("--input: no file for input %s; give NAME=FILE for each of %s", name, all)
		}
		if file == "" {
			file, what = testInputOf(c.Model, k), "test input "
			if _, err := os.Stat(file); k == 0 && errors.Is(err, fs.ErrNotExist) {
				return c.randomInputs(m, names, shapes)
			}
		}
		x, err := readInput(file, name, shapes[name])
		if err != nil {
			return nil, nil, nil, usageError{fmt.Errorf("%s%s: %w", what, file, err)}
		}
		if err := checkFinite(what+file, x); err != nil {
			return nil, nil, nil, err
		}
		xs[name], sources = x, append(sources, fmt.Sprintf("%s %s", name, shown(file)))
	}
	c.printInputs(m, names, shapes, strings.Join(sources, ", "), "on the inputs alone, which is optimistic: the scales fit these very inputs and no others")
	return m, xs, []map[string]*onnx.Array{xs}, nil
}

// randomInputs are seeded random inputs and --random-calib further sets.
func (c *runCmd) randomInputs(m *onnx.Model, names []string, shapes map[string][]int) (*onnx.Model, map[string]*onnx.Array, []map[string]*onnx.Array, error) {
	c.randomIn = true
	set := func(seed uint64) map[string]*onnx.Array {
		xs := map[string]*onnx.Array{}
		for k, name := range names {
			xs[name] = randomInput(shapes[name], inputSeed(seed, k))
		}
		return xs
	}
	calib := make([]map[string]*onnx.Array, c.RandomCalib)
	for i := range calib {
		calib[i] = set(c.InputSeed + 1 + uint64(i))
	}
	c.printInputs(m, names, shapes,
		fmt.Sprintf("random, uniform in [0,1), seed %d (--input-seed; input k of seed s + k·2^32; no --input given and no %s beside the model)", c.InputSeed, shown(testInputOf(c.Model, 0))),
		fmt.Sprintf("on %d random input sets, seeds %d..%d (--random-calib)", c.RandomCalib, c.InputSeed+1, c.InputSeed+uint64(c.RandomCalib)))
	return m, set(c.InputSeed), calib, nil
}

// printInputs prints the model, its inputs and where their values came
// from.
func (c *runCmd) printInputs(m *onnx.Model, names []string, shapes map[string][]int, source, calib string) {
	var ins []string
	for _, n := range names {
		ins = append(ins, fmt.Sprintf("%s %v", n, shapes[n]))
	}
	fmt.Printf("model     %s: graph %s, opset %d, %d nodes, inputs %s\n", filepath.Base(c.Model), m.Graph.Name, m.Opset, len(m.Graph.Nodes), strings.Join(ins, ", "))
	c.printWeights(os.Stdout)
	fmt.Printf("input     %s\n", source)
	fmt.Printf("calibrate %s\n", calib)
}

// testInputOf is the test data set's input k beside the model.
func testInputOf(model string, k int) string {
	return filepath.Join(filepath.Dir(model), "test_data_set_0", fmt.Sprintf("input_%d.pb", k))
}

// readInput reads a float32 .npy or ONNX TensorProto (.pb) file of the
// shape want, the model's input name's.
func readInput(path, name string, want []int) (*onnx.Array, error) {
	if strings.HasSuffix(path, ".pb") {
		t, err := onnx.LoadTensorFile(path)
		if err != nil {
			return nil, err
		}
		x, err := onnx.ArrayOf(t)
		if err == nil && !slices.Equal(x.Shape, want) {
			err = fmt.Errorf("shape %v; %s", x.Shape, needs(name, want))
		}
		return x, err
	}
	return readFloatNPY(path, func(got []int) error {
		if !slices.Equal(got, want) {
			return fmt.Errorf("shape %v; %s", got, needs(name, want))
		}
		return nil
	})
}
