package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// randomFlags run a model whose weights or inputs were left out: the
// ImageNet test networks of frontend/onnx/testdata/light hold one-value
// stand-ins for their weights and ship no input.
type randomFlags struct {
	RandomWeights *uint64 `name:"random-weights" help:"Fill every weight with seeded random values (onnx.RandomWeights: He-scaled Conv, Gemm and MatMul weights, small biases, BatchNormalization near the identity), then constant-fold: for models that ship stand-ins instead of weights. The same seed gives the same weights." placeholder:"SEED"`
	InputSeed     uint64  `name:"input-seed" help:"Seed of the random input taken when there is neither --input nor a test data set beside the model: uniform in [0,1), of the model input's shape." default:"1" placeholder:"SEED"`
	RandomCalib   int     `name:"random-calib" help:"With that random input and no --calib: calibrate on N further random inputs, seeds input-seed+1 .. input-seed+N." default:"4" placeholder:"N"`
}

// check rejects a calibration count of less than one.
func (f randomFlags) check() error {
	if f.RandomCalib < 1 {
		return usagef("--random-calib %d: give at least 1", f.RandomCalib)
	}
	return nil
}

// randomize fills m's weights with --random-weights, if given, and says
// so ("" otherwise).
func (f randomFlags) randomize(m *onnx.Model) (string, error) {
	if f.RandomWeights == nil {
		return "", nil
	}
	if err := onnx.RandomWeights(m, *f.RandomWeights); err != nil {
		return "", fmt.Errorf("--random-weights: %w", err)
	}
	n := 0
	for _, t := range m.Graph.Initializers {
		if t.DType == onnx.Float32 {
			n += len(t.Float32)
		}
	}
	return fmt.Sprintf("seeded random, seed %d (onnx.RandomWeights, then constant-folded): %d float weights", *f.RandomWeights, n), nil
}

// randomInput is the seeded input of shape: uniform in [0,1).
func randomInput(shape []int, seed uint64) *onnx.Array {
	x := onnx.NewArray(shape...)
	rng := rand.New(rand.NewPCG(seed, 0x1a9e_5eed))
	for i := range x.Data {
		x.Data[i] = rng.Float32()
	}
	return x
}

// randomCalibration is the calibration set of a random input of seed:
// n inputs of seeds seed+1 .. seed+n.
func randomCalibration(shape []int, seed uint64, n int) ([]*onnx.Array, string) {
	set := make([]*onnx.Array, n)
	for i := range set {
		set[i] = randomInput(shape, seed+1+uint64(i))
	}
	return set, fmt.Sprintf("on %d random inputs uniform in [0,1), seeds %d..%d (--random-calib; no --calib given)", n, seed+1, seed+uint64(n))
}

// checkFinite refuses an input holding a NaN or an infinity, naming the
// first such element: the int8 input would clamp an infinity to ±127
// silently, and the float executor would carry it into every layer.
func checkFinite(what string, x *onnx.Array) error {
	for i, v := range x.Data {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			s := "NaN"
			if math.IsInf(f, 1) {
				s = "+Inf"
			} else if math.IsInf(f, -1) {
				s = "-Inf"
			}
			return usagef("%s: element %d %v is %s; the input must be finite", what, i, unflatten(x.Shape, i), s)
		}
	}
	return nil
}

// printWeights says how --random-weights filled the weights, if it did.
func (c *runCmd) printWeights(w io.Writer) {
	if c.weightsNote != "" {
		fmt.Fprintf(w, "weights   %s\n", c.weightsNote)
	}
}
