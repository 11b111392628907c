package onnx

import (
	"fmt"
	"math"
)

// This file holds the float executor's normalizations: BatchNormalization,
// LRN and Softmax, each in every opset's form.

// evalBatchNorm is BatchNormalization: y = (x − mean)/√(var + epsilon)·scale
// + B per channel of x [N,C,...]. The statistics are the mean and var
// inputs (inference), or the batch's own (training: is_test 0, the
// default before opset 7, or training_mode 1 from 14). From opset 14 a
// training node may also give the running mean and var, input·momentum +
// batch·(1 − momentum); the statistics outputs of older opsets are
// refused. spatial 0 (before opset 9) takes the four parameters per
// element of [C,...] rather than per channel. consumed_inputs (opset 1)
// only said which inputs could be overwritten in place and changes
// nothing.
func evalBatchNorm(n *Node, in operands) ([]*Array, error) {
	if len(n.Outputs) > 1 && (in.opset < 14 || n.Int("training_mode", 0) == 0) {
		return nil, fmt.Errorf("%d outputs: the statistics outputs of opset %d not supported; supported: Y, and from opset 14 in training mode the running mean and var", len(n.Outputs), in.opset)
	}
	y, mean, variance, err := batchNorm(n, in)
	if err != nil || len(n.Outputs) == 1 {
		return []*Array{y}, err
	}
	momentum := float64(n.Float("momentum", 0.9))
	ys := []*Array{y}
	for i, batch := range [][]float32{mean, variance} {
		run, _ := in.float(3 + i) // read by batchNorm already
		r := NewArray(run.Shape...)
		for c, v := range batch {
			r.Data[c] = float32(float64(run.Data[c])*momentum + float64(v)*(1-momentum))
		}
		ys = append(ys, r)
	}
	return ys[:len(n.Outputs)], nil
}

// batchNorm computes Y and gives the statistics it used.
func batchNorm(n *Node, in operands) (y *Array, mean, variance []float32, err error) {
	x, err := in.float(0)
	if err != nil {
		return nil, nil, nil, err
	}
	var p [4]*Array // scale, B, mean, var
	for i := range p {
		if p[i], err = in.float(i + 1); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(x.Shape) < 2 {
		return nil, nil, nil, fmt.Errorf("shape %v: want [N,C,...]", x.Shape)
	}
	training := n.Int("training_mode", 0) != 0 || in.opset < 7 && n.Int("is_test", 0) == 0
	spatial := in.opset >= 9 || n.Int("spatial", 1) != 0
	N, C := x.Shape[0], x.Shape[1]
	plane := numel(x.Shape[2:])
	per := C // parameters per channel, or per element of [C,...]
	if !spatial {
		if training {
			return nil, nil, nil, fmt.Errorf("spatial 0 in training mode (is_test 0 before opset 7) not supported; supported: spatial 1, or inference")
		}
		per = C * plane
	}
	for i, a := range p {
		if len(a.Data) != per {
			return nil, nil, nil, fmt.Errorf("input %d %q has %d values, want %d (spatial %v)", i+1, n.Inputs[i+1], len(a.Data), per, spatial)
		}
	}
	mean, variance = p[2].Data, p[3].Data
	if training {
		mean, variance = batchStats(x)
	}
	eps := float64(n.Float("epsilon", 1e-5))
	mul, add := make([]float32, per), make([]float32, per)
	for i := range per {
		a := float64(p[0].Data[i]) / math.Sqrt(float64(variance[i])+eps)
		mul[i], add[i] = float32(a), float32(float64(p[1].Data[i])-float64(mean[i])*a)
	}
	y = NewArray(x.Shape...)
	for b := range N {
		for c := range C {
			o := (b*C + c) * plane
			for i, v := range x.Data[o : o+plane] {
				k := c
				if !spatial {
					k = c*plane + i
				}
				y.Data[o+i] = v*mul[k] + add[k]
			}
		}
	}
	return y, mean, variance, nil
}

// batchStats are the mean and (population) variance of every channel of
// x [N,C,...] over the batch and the spatial dims.
func batchStats(x *Array) (mean, variance []float32) {
	N, C, plane := x.Shape[0], x.Shape[1], numel(x.Shape[2:])
	mean, variance = make([]float32, C), make([]float32, C)
	for c := range C {
		var s, ss float64
		for b := range N {
			for _, v := range x.Data[(b*C+c)*plane : (b*C+c+1)*plane] {
				s += float64(v)
				ss += float64(v) * float64(v)
			}
		}
		cnt := float64(N * plane)
		m := s / cnt
		mean[c], variance[c] = float32(m), float32(ss/cnt-m*m)
	}
	return mean, variance
}

// evalLRN is LRN across channels: y = x / (bias + alpha/size · Σ x²)^beta,
// the sum over the channels c − ⌊(size−1)/2⌋ to c + ⌈(size−1)/2⌉ that
// exist.
func evalLRN(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	size := n.Int("size", 0)
	if size < 1 {
		return nil, fmt.Errorf("size %d: want a positive size (the attribute is required)", size)
	}
	if len(x.Shape) < 3 {
		return nil, fmt.Errorf("shape %v: want [N,C,D1,...]", x.Shape)
	}
	alpha, beta, bias := float64(n.Float("alpha", 1e-4)), float64(n.Float("beta", 0.75)), float64(n.Float("bias", 1))
	N, C, plane := x.Shape[0], x.Shape[1], numel(x.Shape[2:])
	below, above := int((size-1)/2), int(size-1-(size-1)/2)
	y := NewArray(x.Shape...)
	parallel(N*C, func(lo, hi int) {
		sum := make([]float64, plane)
		for job := lo; job < hi; job++ {
			b, c := job/C, job%C
			clear(sum)
			for k := max(0, c-below); k <= min(C-1, c+above); k++ {
				for i, v := range x.Data[(b*C+k)*plane : (b*C+k+1)*plane] {
					sum[i] += float64(v) * float64(v)
				}
			}
			o := job * plane
			for i, v := range x.Data[o : o+plane] {
				y.Data[o+i] = float32(float64(v) / math.Pow(bias+alpha/float64(size)*sum[i], beta))
			}
		}
	})
	return y, nil
}

// evalSoftmax is Softmax. Before opset 13 the input is taken as a matrix
// whose rows are the dims before axis (default 1) and whose columns are
// the rest, and each row is normalized; from 13 on each line along axis
// (default −1) is.
func evalSoftmax(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	def := int64(-1)
	if in.opset < 13 {
		def = 1
	}
	r := len(x.Shape)
	ax, err := axis(n.Int("axis", def), max(r, 1))
	if err != nil {
		return nil, err
	}
	if r == 0 {
		return &Array{Shape: []int{}, Data: []float32{1}}, nil
	}
	outer, length, inner := numel(x.Shape[:ax]), x.Shape[ax], numel(x.Shape[ax+1:])
	if in.opset < 13 {
		length, inner = numel(x.Shape[ax:]), 1
	}
	y := NewArray(x.Shape...)
	for o := range outer {
		for i := range inner {
			at := func(k int) int { return (o*length+k)*inner + i }
			m := math.Inf(-1)
			for k := range length {
				m = max(m, float64(x.Data[at(k)]))
			}
			var s float64
			for k := range length {
				s += math.Exp(float64(x.Data[at(k)]) - m)
			}
			for k := range length {
				y.Data[at(k)] = float32(math.Exp(float64(x.Data[at(k)])-m) / s)
			}
		}
	}
	return y, nil
}
