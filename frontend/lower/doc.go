// Package lower quantizes a float ONNX CNN to int8 and lowers it onto a
// compiler.Graph, so that it runs on the NPU (the compiler's reference
// machine or the simulators).
//
// Quantize calibrates every activation by running the float executor
// (onnx.Graph.Execute) on caller-given inputs (QuantizeInputs: a value
// for each of several graph inputs, each its own int8 input of the
// compiler graph at its own scale; Net.GraphOf), folds every value that
// does not depend on the input's data into a constant taken from that run
// (initializers, Constant, Shape, and any op all of whose inputs are
// constant: the Shape/Gather/Unsqueeze/Concat of PyTorch's
// x.view(x.size(0), -1), Slice, Cast, Squeeze, a Transpose or Reshape of
// weights), quantizes each Conv's, Gemm's and MatMul's weights per output
// channel (package quant), and maps the rest node by node (the ops
// onnx.OpTable marks NPU, which are Ops). It lowers onnx.Graph.Inference
// of the model: Identity and Dropout are gone, a Sum of more than two
// inputs is a chain of Adds (each partial sum calibrated). An affine
// below is a chain of per-channel affine ops y[c] = a[c]·x + b[c], each
// its predecessor's only user: BatchNormalization in inference (a =
// scale/√(var + epsilon), b = B − mean·a), and a Mul, Div, Add or Sub of
// the value by a constant of one value per channel or one value (affine.go).
//
//	Conv [+ affine] [+ Relu] [+ Clip]     → Conv2D, per-channel requantization;
//	                                        the affine folded into the float
//	                                        weights (output channel c times
//	                                        a[c], before quantization) and the
//	                                        bias (a·bias + b), the ReLU flag,
//	                                        the Clip as the clamp; group g →
//	                                        Conv.Groups (depthwise: g = C);
//	                                        1-D ([1,C,L]) as 1×k, H = 1 (oned.go)
//	  dilations (dh, dw)                  → Conv2D of the weights spread out to
//	                                        (kh−1)·dh+1 × (kw−1)·dw+1, zeros
//	                                        between the taps (dilation.go)
//	  1×1, stride s > 1, no pads          → Pool2D max 1×1 stride s (the input
//	                                        subsampled, shared by the convs of
//	                                        one input), Conv2D stride 1
//	                                        (subsample.go)
//	  uneven pads (a folded Pad's)        → Conv2D with a larger symmetric padding,
//	                                        then a crop (as a pool's, pool_pad.go)
//	MatMul [+ affine] [+ Relu] [+ Clip]   → GEMMPerChannel, likewise
//	Gemm (transA 0) [+ affine] [+ Relu] [+ Clip]
//	                                      → GEMMPerChannel, alpha folded into
//	                                        the weights, beta·C into the bias
//	  of the graph input [1,N] or [N]     → the input is the matrix [1,N] (an MLP);
//	                                        every [N] value is the row [1,N]
//	affine [+ Relu] [+ Clip] of a feature map no layer absorbs
//	                                      → Conv2D 1×1 depthwise (Groups = C):
//	                                        weight a[c] (±127 at the scale
//	                                        |a[c]|/127), bias b[c], per-channel
//	                                        requantization
//	Pad of zeros on the plane, one user a Conv, AveragePool or MaxPool
//	                                      → nothing: its pads add to the window's
//	                                        (pad.go); an average counts its zeros
//	                                        in the divisor; a MaxPool without pads
//	                                        of its own pads with zeros (Pool2D max,
//	                                        golden.PadZero), with pads only on a
//	                                        value ≥ 0 (a Relu's, a Clip's, min ≥ 0)
//	MaxPool                               → Pool2D max with golden.PadIgnore
//	                                        (1-D: 1×k, as a Conv)
//	  dilations (dh, dw)                  → stride s a multiple of dh = dw: a
//	                                        depthwise Conv2D of one weight 1
//	                                        gathering the phase the taps read,
//	                                        Pool2D max (stride s/d) over it; else
//	                                        kw shifted copies (depthwise Conv2D of
//	                                        one weight 1, stride 1), Eltwise min
//	                                        with a constant 127/−128 map where a
//	                                        copy reads padding (none on a value
//	                                        ≥ 0), Eltwise max; then kh copies of
//	                                        that with stride s, likewise
//	                                        (pool_dilated.go)
//	AveragePool                           → Pool2D avg (zero padding; 1-D: 1×k)
//	  dilations (dh, dw)                  → Conv2D depthwise of ones at the taps,
//	                                        zeros between them (the window's sum,
//	                                        rescaled as the pool's), pool_dilated.go
//	  asymmetric pads                     → the pool with a larger symmetric
//	                                        padding, then a crop (a depthwise
//	                                        Conv2D of one weight 1), pool_pad.go
//	  count_include_pad 0 with pads       → then Eltwise mul by a constant map
//	                                        (a graph input, Net.Constants) of
//	                                        the exact factors KH·KW/n, rescaled
//	GlobalAveragePool                     → Pool2D avg of the whole plane (up to
//	                                        max_kernel, with planar_pool_avg),
//	                                        else Reduce sum
//	GlobalMaxPool                         → Pool2D max of the whole plane (up to
//	                                        max_kernel), else Reduce max
//	ReduceSum, ReduceMean over axes 2,3 (the plane) or 2 (across rows)
//	                                      → Pool2D avg of the whole plane (H×1 for
//	                                        rows) when it fits, keepdims 1, else
//	                                        ReduceWith sum or rowsum
//	ReduceMax likewise                    → Pool2D max, else ReduceWith max or
//	                                        rowmax (no division)
//	ReduceSum/ReduceMean/ReduceMax + Sqrt or Reciprocal
//	                                      → ReduceWith with the post function sqrt
//	                                        or recip (postRequant)
//	Sqrt, Reciprocal of [1,C,1,1] or [1,C]
//	                                      → ReduceWith sum of the one element, with
//	                                        the post function
//	Add, Sum, Min, Max of two values of one shape [+ Relu] [+ Clip]
//	                                      → Eltwise add, min or max, the finer operand
//	                                        first rescaled to the coarser one's scale
//	                                        (an Add's operand with no other user is
//	                                        produced in that scale: no rescale pass)
//	Min, Max of a value and a one-element constant
//	                                      → Requant with the constant as the clamp bound
//	Relu, Clip alone                      → Requant with ReLU or the clamp
//	Abs                                   → Eltwise abs, then the requantization
//	Sigmoid, Tanh, Exp, HardSigmoid, HardSwish, Elu, LeakyRelu (the spec's
//	attribute defaults)                   → Lookup: the table of the float function
//	                                        from the input's scale to the output's
//	                                        calibrated scale (golden.TableOf), within
//	                                        half an output step of f of the int8 input
//	PRelu by a constant slope             → one value: Lookup (as LeakyRelu); one per
//	                                        channel ([C,1,1], [1,C,1,1], C values
//	                                        before opset 7): Requant with ReLU (max(x,0)),
//	                                        EltwiseScalar min 0, a depthwise 1×1 Conv2D
//	                                        of it with the slopes as per-channel
//	                                        multipliers, Eltwise add (prelu.go)
//	Softmax over all N values of a [1,N] Gemm/MatMul result or of a
//	[1,C,1,1] / [1,C] value, as the graph output
//	                                      → the logits in one row (the Transpose of a
//	                                        Gemm result or the Column of a per-channel
//	                                        value, then an on-chip Transpose), Reduce
//	                                        max, EltwiseChannel sub (+127), Lookup of
//	                                        exp (1/127 units), ReduceWith sum + recip
//	                                        (the output's scale), EltwiseChannel mul
//	                                        (softmax.go)
//	LRN of [1,C,H,W] (size required, bias > 0)
//	                                      → Eltwise mul x·x (units 127·sx²), Conv2D
//	                                        1×1 with banded 0/1 weights (the window
//	                                        sums, offset to the whole int8 range),
//	                                        Lookup of (bias + alpha/size·s)^−beta,
//	                                        Eltwise mul by x (lrn.go)
//	Reshape/Flatten/Squeeze/Unsqueeze of [1,C,H,W] to [1,C·H·W]
//	                                      → Flatten
//	Transpose of a Gemm/MatMul result     → Transpose (a view: free)
//	Concat of [1,C,H,W] maps on axis 1    → Concat: every part in the output's
//	                                        scale (its producer's requantization
//	                                        targets it when the concat is its one
//	                                        user, else a Requant), so the concat
//	                                        only places data
//	Split of [1,C,H,W] maps on axis 1     → a Conv2D 1×1 of 0/1 weights per part,
//	                                        selecting its channel range (identity
//	                                        requantization: exact, the input's
//	                                        scale; split.go)
//	Resize, Upsample, mode nearest, of [1,C,H,W] by scales [1,1,2,2]
//	(or sizes [1,C,2H,2W]) where output o reads input ⌊o/2⌋ (checked
//	for every position against the float executor's mapping)
//	                                      → Upsample (factor 2: four strided
//	                                        DMA stores per input row, the result
//	                                        in external memory; the input's
//	                                        scale kept, and the Concat's when
//	                                        the upsampling is the one user of
//	                                        its input and a Concat its own one
//	                                        user: U-Net; resize.go)
//	Reshape [1,g,C/g,H,W] – Transpose [0,2,1,3,4] – Reshape [1,C,H,W]
//	                                      → ChannelShuffle (ShuffleNet's shuffle;
//	                                        the compiler folds it into the reading
//	                                        conv's weight order, moving no data)
//
// A model of batch N > 1 is lowered image by image (batch.go): the
// calibration covers the whole batch, the net is one image's (Net.Images
// splits a batch, Net.Stack joins the outputs, Net.StackValues joins the
// images' lowered values for Net.Quality of the whole batch), and a value
// without the batch as its first axis or an op along it is refused.
//
// Every activation is symmetric int8 with one scale per tensor; a max pool,
// a flatten, a transpose, a channel shuffle and an upsampling keep their input's scale (max commutes with a
// positive scale), every other op rescales to its output's calibrated
// scale (a ReduceMax or GlobalMaxPool too: its maximum, one of the int8
// values, is rescaled with no division). A Clip's bounds become the post-processor's clamp in output
// units, round(bound/scale). An average divides through the
// post-processor: the window sum times Scale, shifted right by Shift with
// rounding half up, Scale/2^Shift ≈ s_in/(s_out·KH·KW) (see rescale); it
// can differ from the exactly rounded average by one step. A square root
// or reciprocal applies to S·Scale before the shift (see post.go:
// Scale/4^Shift ≈ s_in/(div·s_out²) for the root, 2^(K−Shift)/Scale ≈
// div/(s_in·s_out) for the reciprocal, K the planar engine's RecipShift).
// The graph's
// output stays int8 in units of its own calibrated scale, or with the
// Int32Output option, when the last layer is a Conv, Gemm or MatMul (bias
// folded, no Relu or Clip), leaves as int32 acc + bias in units of
// sx·sw[o] per output channel o (compiler.Conv.Int32, GEMMInt32): no
// saturation at the calibrated range, no int8 step; a Softmax last keeps
// its Gemm int8 (its input) and is the int8 output, Net.Logits naming the
// logits. Net.Dequantize turns
// either back into floats. Every requantization rounds the bits its shift
// drops half up, floor(v/2^s + 1/2), or with WithRounding(golden.HalfEven)
// to the nearest even integer on a tie (golden.Requant has both formulas;
// the planar engine takes the mode per task, its round_even field). Anything else (another op, an attribute value
// named above as unsupported, a pool or conv whose symmetric cover reaches the
// window, a Pad of another mode or value, a node mixing a batch's images) is an error
// naming the node and op.
package lower
