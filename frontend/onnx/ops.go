package onnx

import (
	"fmt"
	"strings"
)

//go:generate go run ./internal/opsdoc -o ../../docs/onnx-ops.md

// Op is one default-domain ONNX operator that hwgen takes, and which parts
// of the frontend take it.
type Op struct {
	Name string
	// Since is the opset that introduced the op when that is later than
	// MinOpset, else 0; Until is the last opset that has it when that is
	// earlier than MaxOpset (an op the standard removed), else 0. The op
	// is read in the default-domain opsets Opsets gives, and Model.Check
	// refuses it in others.
	Since, Until int64
	// Float: the float executor (Graph.Execute: calibration, hwgen run's
	// float side) runs it.
	Float bool
	// NPU: frontend/lower maps it onto the NPU. A Float op that is not NPU
	// is taken by the lowering only inside a constant subgraph, which it
	// folds (as it folds any op whose inputs are all constant); elsewhere
	// it runs in float only.
	NPU bool
	// Conformance: hwgen conformance (frontend/conformance) runs the
	// official ONNX node tests of the op.
	Conformance bool
	// Eltwise names the golden elementwise function (golden.ParseEltOp)
	// of a unary op the planar engine computes, then requantizes: the
	// lowering and conformance take every such op the same way, so a new
	// one is a row here and its float function.
	Eltwise string
	// Doc is one line for the help texts and docs/onnx-ops.md: what hwgen
	// makes of the op and the attribute values and shapes it takes. Ops
	// next to each other with the same Doc are listed together.
	Doc string
}

// Opsets is the range of default-domain opsets the op is read in.
func (o Op) Opsets() (lo, hi int64) {
	hi = MaxOpset
	if o.Until != 0 {
		hi = o.Until
	}
	return max(o.Since, MinOpset), hi
}

// Docs shared by several ops.
const (
	docMinMax   = "of two values of one shape: eltwise min or max, the finer operand rescaled; of a value and a one-element constant: a clamp (Max(x, 0) is a ReLU)"
	docGlobal   = "a pool of the whole plane (up to max_kernel), else a per-channel reduce (sum, max); an average also a reduce on an NPU without average pooling (planar_pool_avg false)"
	docReduce   = "over the plane (axes 2,3) or across rows (axis 2): a pool of the window, or a planar reduce (across rows: hwgen quantize does not export it)"
	docPost     = "after a ReduceSum/ReduceMean/ReduceMax (the reduce's post function), or of one value per channel"
	docView     = "of [1,C,H,W] to [1,C·H·W] (Flatten: axis 1): the NPU's flatten; to the same shape: nothing; Reshape to [1,g,C/g,H,W], Transpose perm [0,2,1,3,4], Reshape back to [1,C,H,W]: ShuffleNet's channel shuffle (ChannelShuffle: no data moved when convs read it)"
	docFoldOnly = "only in a constant subgraph (e.g. the Shape, Gather, Unsqueeze, Concat of PyTorch's x.view(x.size(0), -1)), folded before lowering"
	docAffine   = "a per-channel affine a[c]·x + b[c] folded into the Conv, Gemm or MatMul before it (output channel c's float weights scaled by a[c] before quantization, the bias carried), else with the affine ops, Relu and Clip after it a depthwise 1×1 conv"
	docArith    = "by a constant of one value per channel or one value (before opset 7 also the broadcast and axis attributes; c − x too, not c / x): " + docAffine + "; of two computed values refused"
	docAct      = "elementwise with the spec's attribute defaults: the planar engine's lookup table of the function from the input's scale to the output's (one entry per int8 value)"
	docPass     = "inference, so the input passes on (Dropout's mask: all true, before opset 10 zeros as in ONNX Runtime; training_mode true is refused); Model.Fold and the lowering (Graph.Inference) remove it"
)

// OpTable is the one list of the ONNX operators hwgen supports: the
// reader's check (SupportedOps, FloatOps), the float executor's dispatch,
// frontend/lower's dispatch (lower.Ops), the ops hwgen conformance runs
// (conformance.Ops), the help of hwgen run and hwgen conformance and
// docs/onnx-ops.md all come from it, and tests keep each implementation
// in step with it. Its order is the order of those lists (hwgen
// conformance reports the integer ops first).
var OpTable = []Op{
	{Name: "ConvInteger", Since: 10, Conformance: true,
		Doc: "conformance only: the NPU's conv, zero points subtracted on the host (uint8 data in 9-bit elements), the int32 sums leaving as int32"},
	{Name: "MatMulInteger", Since: 10, Conformance: true,
		Doc: "conformance only: the NPU's GEMM, zero points subtracted on the host (uint8 data in 9-bit elements), the int32 sums leaving as int32"},
	{Name: "QLinearConv", Since: 10, Conformance: true,
		Doc: "conformance only: as ConvInteger, then a per-channel requantization by an integer multiplier and shift, half to even"},
	{Name: "QLinearMatMul", Since: 10, Conformance: true,
		Doc: "conformance only: as MatMulInteger, then a per-channel requantization by an integer multiplier and shift, half to even"},
	{Name: "QuantizeLinear", Since: 10, Conformance: true,
		Doc: "conformance only: the host's float → int conversion at the NPU's boundary (frontend/quant)"},
	{Name: "DequantizeLinear", Since: 10, Conformance: true,
		Doc: "conformance only: the host's int → float conversion at the NPU's boundary (frontend/quant)"},

	{Name: "Conv", Float: true, NPU: true, Conformance: true,
		Doc: "2-D, or 1-D ([1,C,L]: as 1×k with H = 1), any dilations (the weights spread out, zeros between the taps), constant weights, equal strides, pads symmetric or uneven with a symmetric cover below the window (a larger padding and a crop; a Pad of zeros before it folded in), any group (grouped and depthwise: Conv.Groups, block-diagonal weight tiles): Conv2D, int8 weights per output channel; the per-channel affine ops (bias Add, BatchNormalization, Mul/Div/Add/Sub by a constant), Relu and Clip after it folded"},
	{Name: "Gemm", Float: true, NPU: true, Conformance: true,
		Doc: "A [1,K] (transA 0; a computed value or the graph input: an MLP) by a constant B: a GEMM per output channel, alpha folded into the weights, beta·C into the bias; the per-channel affine ops, Relu and Clip after it folded"},
	{Name: "MatMul", Float: true, NPU: true, Conformance: true,
		Doc: "[1,K] or [K] (a computed value or the graph input: an MLP) by a constant [K,N], [K] as the row [1,K]: a GEMM per output channel; the per-channel affine ops (bias Add, BatchNormalization, Mul/Div/Add/Sub by a constant), Relu and Clip after it folded"},
	{Name: "Add", Float: true, NPU: true, Conformance: true,
		Doc: "of two values of one shape: eltwise add, the finer operand rescaled (produced in the coarser scale when the Add is its only user); of a value and a constant: " + docAffine},
	{Name: "Min", Float: true, NPU: true, Conformance: true, Doc: docMinMax},
	{Name: "Max", Float: true, NPU: true, Conformance: true, Doc: docMinMax},
	{Name: "Relu", Float: true, NPU: true, Conformance: true,
		Doc: "fused into the Conv, Gemm, MatMul, Add or per-channel affine before it, else alone: a requantization with ReLU"},
	{Name: "Clip", Float: true, NPU: true, Conformance: true,
		Doc: "constant bounds: fused into the layer before it as the clamp, else alone: a requantization with the clamp"},
	{Name: "Abs", Float: true, NPU: true, Conformance: true, Eltwise: "abs",
		Doc: "the planar engine's eltwise abs, then a requantization (hwgen quantize does not export it)"},
	{Name: "Neg", Float: true, NPU: true, Conformance: true, Eltwise: "neg",
		Doc: "the planar engine's eltwise neg (−(−128) saturates to 127), then a requantization (hwgen quantize does not export it)"},
	{Name: "MaxPool", Float: true, NPU: true, Conformance: true,
		Doc: "2-D, or 1-D ([1,C,L]: as 1×k), equal strides, ceil_mode 0, any pads whose symmetric cover stays below the window (a Pad of zeros before it folded in: as its zero padding, or added to its pads on a value ≥ 0): a max pool whose padding never wins; asymmetric pads (AlexNet's [0,0,1,1]) by a larger symmetric padding and a crop (a depthwise conv of one weight 1); any dilations, exact: a stride that is a multiple of equal dilations as a conv gathering the phase the taps read and the undilated max pool over it, else separably, kw + kh shifted copies (depthwise convs of one weight 1), an eltwise min with a constant map (the element's range: 127 in the plane, −128 in the padding) for each copy that reads padding (none on a value ≥ 0), eltwise maxes; every window must read the plane"},
	{Name: "AveragePool", Float: true, NPU: true, Conformance: true,
		Doc: "2-D, or 1-D ([1,C,L]: as 1×k), equal strides, ceil_mode 0, pads as MaxPool's (a Pad of zeros before it folded in, its zeros counted): the planar engine's average pool (zero padding); count_include_pad 0 where windows reach the padding: then an eltwise multiply by a constant map of exact per-position factors (KH·KW/n); dilations whose spread-out window (k−1)·d+1 fits max_kernel: the window's sum a depthwise conv of ones at the taps, zeros between them (the divisor map counting the taps inside the plane)"},
	{Name: "GlobalAveragePool", Float: true, NPU: true, Conformance: true, Doc: docGlobal},
	{Name: "GlobalMaxPool", Float: true, NPU: true, Conformance: true, Doc: docGlobal},
	{Name: "ReduceSum", Float: true, NPU: true, Conformance: true, Doc: docReduce},
	{Name: "ReduceMean", Float: true, NPU: true, Conformance: true, Doc: docReduce},
	{Name: "ReduceMax", Float: true, NPU: true, Conformance: true, Doc: docReduce},
	{Name: "Sqrt", Float: true, NPU: true, Conformance: true, Doc: docPost + " (hwgen quantize does not export it)"},
	{Name: "Reciprocal", Float: true, NPU: true, Conformance: true, Doc: docPost + " (hwgen quantize exports it after a reduction over the plane)"},
	{Name: "Flatten", Float: true, NPU: true, Conformance: true, Doc: docView},
	{Name: "Reshape", Float: true, NPU: true, Conformance: true, Doc: docView},
	{Name: "Squeeze", Float: true, NPU: true, Doc: docView},
	{Name: "Unsqueeze", Float: true, NPU: true, Doc: docView},
	{Name: "Transpose", Float: true, NPU: true, Conformance: true,
		Doc: "of a Gemm or MatMul result (perm [1 0]): a view, free; perm [0,2,1,3,4] inside a channel shuffle (see Reshape)"},
	{Name: "Concat", Float: true, NPU: true,
		Doc: "of feature maps along channels (axis 1): Concat, each part rescaled to the output's scale by its producer (or a requantization when others read it), placed without a copy where the compiler can; other axes only in a constant subgraph, folded"},

	{Name: "Sub", Float: true, NPU: true, Doc: docArith},
	{Name: "Mul", Float: true, NPU: true, Doc: docArith},
	{Name: "Div", Float: true, NPU: true, Doc: docArith},
	{Name: "Sum", Float: true, NPU: true,
		Doc: "of two values: as Add; of more: a chain of eltwise adds (split into Adds before calibration, so each partial sum has its own scale); of one: removed"},
	{Name: "BatchNormalization", Float: true, NPU: true,
		Doc: "inference (is_test 1 before opset 7; spatial 0 only with parameters equal within each channel): a = scale/√(var + epsilon), b = B − mean·a, " + docAffine + "; training mode refused (the float executor runs it)"},
	{Name: "LRN", Float: true, NPU: true,
		Doc: "across channels of [1,C,H,W], size required, bias > 0: eltwise square, the window sums as a 1×1 conv with banded 0/1 weights, a lookup table of (bias + alpha/size·s)^−beta, eltwise multiply by x"},
	{Name: "Softmax", Float: true, NPU: true,
		Doc: "over all N values of a [1,N] Gemm/MatMul result or a [1,C,1,1] value (before opset 13 the input coerced to 2-D at axis, default 1; from 13 along axis, default −1), as the graph's output: the logits in one row, planar max, subtract, exp table, sum with the reciprocal, multiply"},
	{Name: "Sigmoid", Float: true, NPU: true, Doc: docAct},
	{Name: "Tanh", Float: true, NPU: true, Doc: docAct},
	{Name: "Exp", Float: true, NPU: true, Doc: docAct},
	{Name: "HardSigmoid", Float: true, NPU: true, Doc: docAct},
	{Name: "HardSwish", Float: true, NPU: true, Since: 14, Doc: docAct},
	{Name: "Elu", Float: true, NPU: true, Doc: docAct},
	{Name: "LeakyRelu", Float: true, NPU: true, Doc: docAct},
	{Name: "PRelu", Float: true, NPU: true,
		Doc: "a constant slope: one value, a lookup table; one per channel of [1,C,H,W] ([C,1,1], [1,C,1,1]; before opset 7 C values), max(x,0) plus a depthwise 1×1 conv of min(x,0) whose per-channel multipliers are the slopes, an eltwise add"},
	{Name: "Pad", Float: true, NPU: true,
		Doc: "on the NPU mode constant of value 0, pads ≥ 0 of the plane of [1,C,H,W] (any opset's form: paddings, pads, inputs, opset 18's axes), whose one user is a Conv, AveragePool or MaxPool: folded into that window's padding (uneven: a larger padding and a crop; an average counts the zeros; a max pool's own pads add only on a value ≥ 0, a Relu's); the float executor also runs reflect and edge (not wrap) and negative pads (a crop)"},
	{Name: "Split", Float: true, NPU: true,
		Doc: "on the NPU along the channels (axis 1) of [1,C,H,W] or [1,C,L], split sizes as attribute or input or equal parts (num_outputs from opset 18): each part a 1×1 conv of 0/1 weights selecting its channels (exact, the input's scale); the float executor splits along any axis"},
	{Name: "Resize", Float: true, NPU: true, Since: 10,
		Doc: "on the NPU mode nearest by 2 of the plane of [1,C,H,W] (scales [1,1,2,2] or sizes [1,C,2H,2W]) where output pixel o reads input ⌊o/2⌋ (coordinate_transformation_mode half_pixel, half_pixel_symmetric or pytorch_half_pixel with nearest_mode round_prefer_floor or round_prefer_ceil; asymmetric with floor or round_prefer_floor; tf_half_pixel_for_nn with floor; opset 10's always): four strided DMA stores per input row into external memory, the input's scale kept; the float executor also runs any scales or sizes, every coordinate_transformation_mode but tf_crop_and_resize and every nearest_mode (no antialias or axes)"},
	{Name: "Upsample", Float: true, NPU: true, Since: 7, Until: 9,
		Doc: "on the NPU mode nearest, scales [1,1,2,2] of [1,C,H,W] (attribute at 7 and 8, input at 9): as Resize; the float executor also runs any scales"},
	{Name: "Dropout", Float: true, Doc: docPass},
	{Name: "Identity", Float: true, Doc: docPass},
	{Name: "ConstantOfShape", Float: true, Since: 9,
		Doc: "a tensor of one value: the weight stand-ins of test models (onnx.RandomWeights fills them), else folded before lowering"},
	{Name: "Constant", Float: true, Doc: docFoldOnly},
	{Name: "Shape", Float: true, Doc: docFoldOnly},
	{Name: "Gather", Float: true, Doc: docFoldOnly},
	{Name: "Slice", Float: true, Doc: docFoldOnly},
	{Name: "Cast", Float: true, Doc: docFoldOnly},
}

// OpNames are the names of the ops of OpTable that keep reports true for,
// in table order.
func OpNames(keep func(Op) bool) []string {
	var names []string
	for _, o := range OpTable {
		if keep(o) {
			names = append(names, o.Name)
		}
	}
	return names
}

// LookupOp is the op of OpTable called name.
func LookupOp(name string) (Op, bool) {
	for _, o := range OpTable {
		if o.Name == name {
			return o, true
		}
	}
	return Op{}, false
}

// OpGroup is a run of ops next to each other in OpTable with the same Doc.
type OpGroup struct {
	Names []string
	Doc   string
}

// OpGroups groups the ops keep reports true for, in table order: ops next
// to each other with one Doc make one group.
func OpGroups(keep func(Op) bool) []OpGroup {
	var gs []OpGroup
	for _, o := range OpTable {
		if !keep(o) {
			continue
		}
		if n := len(gs); n > 0 && gs[n-1].Doc == o.Doc {
			gs[n-1].Names = append(gs[n-1].Names, o.Name)
			continue
		}
		gs = append(gs, OpGroup{Names: []string{o.Name}, Doc: o.Doc})
	}
	return gs
}

// OpsMarkdown is docs/onnx-ops.md: OpTable as a Markdown table.
func OpsMarkdown() string {
	var b strings.Builder
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(&b, `# ONNX operators

<!-- Generated from frontend/onnx/ops.go (onnx.OpTable) by go generate ./frontend/onnx; do not edit. -->

hwgen reads ONNX models of the default-domain opsets %d to %d and takes the operators
below, and no other (`+"`Model.Check`"+` names the first node of another op, the op and the
supported ones in one line). The columns:

- **opsets**: the default-domain opsets the op is read in.
- **float**: the float executor runs it (`+"`Graph.Execute`"+`: calibration, the float side of
  `+"`hwgen run`"+`).
- **NPU**: `+"`frontend/lower`"+` maps it onto the NPU (`+"`hwgen run`, `hwgen quantize`"+`). A float op
  that is not an NPU op is taken by the lowering only inside a constant subgraph, which it
  folds (as it folds any op whose inputs are all constant); elsewhere it runs in float only.
- **conformance**: `+"`hwgen conformance`"+` runs its official ONNX node tests.

| op | opsets | float | NPU | conformance | what hwgen makes of it |
|---|---|---|---|---|---|
`, MinOpset, MaxOpset)
	for _, o := range OpTable {
		lo, hi := o.Opsets()
		fmt.Fprintf(&b, "| %s | %d–%d | %s | %s | %s | %s |\n", o.Name, lo, hi, yes(o.Float), yes(o.NPU), yes(o.Conformance),
			strings.ReplaceAll(o.Doc, "|", `\|`))
	}
	return b.String()
}
