package conformance

import (
	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// reduceTest maps ReduceSum, ReduceMean or ReduceMax of a [C,H,W] or
// [1,C,H,W] tensor onto the planar engine's reduce: over each channel's
// plane (sum, max) or across its rows (rowsum, rowmax: axis H alone); a
// mean divides by the post-processor's round(2^14/n), shift 14.
func reduceTest(c *Case, base npu.Config) (*job, *Result, error) {
	n := c.Model.Graph.Nodes[0]
	x, err := tensor(c.input(0), "input "+n.Inputs[0])
	if err != nil {
		return nil, nil, err
	}
	want, err := tensor(c.Outputs[0], "expected output")
	if err != nil {
		return nil, nil, err
	}
	off := len(x.Shape) - 3 // the channel axis
	if off < 0 || off > 1 || off == 1 && x.Shape[0] != 1 {
		return nil, nil, unsupportedf("input %v: want [C,H,W] or [1,C,H,W] (the planar engine reduces feature-map planes)", x.Shape)
	}
	var axes []int64
	if c.input(1) != nil {
		if axes, err = ints(c.input(1), "axes"); err != nil {
			return nil, nil, err
		}
	}
	mask, err := onnx.ReduceAxes(n, axes, c.input(1) != nil, len(x.Shape))
	if err != nil {
		return nil, nil, unsupportedf("%v", err)
	}
	var reduced []int // the axes reduced, for the messages
	for i, m := range mask {
		if m {
			reduced = append(reduced, i)
		}
	}
	ch, h, w := x.Shape[off], x.Shape[off+1], x.Shape[off+2]
	red := func(i, size int) bool { return mask[i] && size > 1 }
	var kind golden.ReduceKind
	count := 0
	switch {
	case red(off, ch):
		return nil, nil, unsupportedf("axes %v of %v reduce the channels: the planar engine reduces within a channel's plane", reduced, x.Shape)
	case !red(off+1, h) && !red(off+2, w):
		return nil, nil, unsupportedf("no axis of a size above 1 is reduced: nothing for the NPU to compute")
	case red(off+2, w) && !mask[off+1] && h > 1:
		return nil, nil, unsupportedf("axes %v of %v reduce W but not H: the planar engine reduces a whole plane or across rows", reduced, x.Shape)
	case red(off+1, h) && !mask[off+2] && w > 1:
		kind, count = golden.ReduceRowSum, h
	default:
		kind, count = golden.ReduceSum, h*w
	}
	if n.OpType == "ReduceMax" {
		kind = map[golden.ReduceKind]golden.ReduceKind{golden.ReduceSum: golden.ReduceMax, golden.ReduceRowSum: golden.ReduceRowMax}[kind]
	}
	r := compiler.Reduction{Kind: kind, Requant: golden.Requant{Scale: 1}}
	note := "planar reduce " + kind.String()
	if n.OpType == "ReduceMean" {
		r.Requant = compiler.AvgRequant(count)
		note += ", times round(2^14/n), shift 14"
	}
	g := compiler.NewGraph()
	in := g.Input("x", &golden.Tensor{Shape: []int{ch, h, w}, Data: x.Data})
	g.Output("y", g.ReduceWith(in, r))
	j, err := elementJob(base, g, want, note, x.Data)
	return j, nil, err
}

// postTest maps Sqrt or Reciprocal onto the post function of a planar
// reduction of one element each: floor(√v), and trunc(2^0/v) (the
// reciprocal with RecipBits 0, which is an integer only for ±1).
func postTest(c *Case, base npu.Config) (*job, *Result, error) {
	n := c.Model.Graph.Nodes[0]
	x, err := tensor(c.input(0), "input "+n.Inputs[0])
	if err != nil {
		return nil, nil, err
	}
	want, err := tensor(c.Outputs[0], "expected output")
	if err != nil {
		return nil, nil, err
	}
	r := compiler.Reduction{Kind: golden.ReduceSum, Post: golden.PostSqrt, Requant: golden.Requant{Scale: 1}}
	note := "reduce of one element with the post function sqrt, floor(√v)"
	if n.OpType == "Reciprocal" {
		r.Post = golden.PostRecip
		note = "reduce of one element with the post function recip, recip_bits 0"
	}
	g := compiler.NewGraph()
	in := g.Input("x", &golden.Tensor{Shape: []int{len(x.Data), 1}, Data: x.Data})
	g.Output("y", g.ReduceWith(in, r))
	j, err := elementJob(base, g, want, note, x.Data)
	return j, nil, err
}
