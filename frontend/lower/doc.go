// Package lower quantizes a float ONNX CNN to int8 and lowers it onto a
// compiler.Graph, so that it runs on the NPU (the compiler's reference
// machine or the simulators).
//
// Quantize calibrates every activation by running the float executor
// (onnx.Graph.Execute) on caller-given inputs, quantizes each Conv's and
// MatMul's weights per output channel (package quant), and maps the graph
// node by node:
//
//	Conv [+ Add bias] [+ Relu]     → Conv2D, per-channel requantization,
//	                                 the bias folded into it, the ReLU flag
//	MaxPool                        → Pool2D max with golden.PadIgnore
//	Reshape/Flatten to [1, C·H·W]  → Flatten
//	MatMul [+ Add bias] [+ Relu]   → GEMMPerChannel, likewise
//	Reshape of a constant          → folded into the constant
//
// Every activation is symmetric int8 with one scale per tensor; a max pool
// and a flatten keep their input's scale (max commutes with a positive
// scale). The graph's output stays int8 in units of its own calibrated
// scale, or with the Int32Output option, when the last layer is a Conv or
// MatMul (bias folded, no Relu), leaves as int32 acc + bias in units of
// sx·sw[o] per output channel o (compiler.Conv.Int32, GEMMInt32): no
// saturation at the calibrated range, no int8 step. Net.Dequantize turns
// either back into floats. Anything else (another
// op, an Add that is not a constant bias, asymmetric padding, a batch
// other than 1, a tensor used twice) is an error naming the node and op.
package lower
