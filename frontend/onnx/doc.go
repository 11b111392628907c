// Package onnx reads ONNX models into plain Go values.
//
// Load and LoadFile decode a serialized ModelProto into a Model: IR
// version, opset imports, graph inputs and outputs with element type and
// shape, initializers decoded to Go slices, and nodes in file order with
// typed attributes. LoadTensor decodes a lone TensorProto, the format of
// the Model Zoo's test_data_set_N/*.pb files. Model.Check reports the
// first op or element type outside what hwgen supports (SupportedOps,
// SupportedDTypes), one problem per error line.
//
// Graph.Execute and Graph.Run evaluate a graph in float for the ops
// FloatOps lists (mnist-7's, Gemm, Clip, AveragePool, GlobalAveragePool,
// GlobalMaxPool, ReduceSum, ReduceMean, ReduceMax, Sqrt, Reciprocal, Min,
// Max, Transpose and the shape
// computations exporters emit: Constant, Shape, Gather, Unsqueeze,
// Squeeze, Concat, Slice, Cast), after the ONNX operator spec for opsets
// 7 to 18: a plain, slow reference executor that quantized results are
// checked against and that calibration runs on.
// Integer values (shapes, indices) travel as Array.Ints, exactly.
//
// What it does not do: quantization, lowering onto the compiler and the
// folding of constant subgraphs are package lower's; it runs no shape
// inference (shapes come from running the graph); it does not
// read external tensor data, sparse initializers, subgraphs or model-local
// functions (graph attributes are kept only by kind, so Check rejects the
// ops that carry them). The protobuf types live in package onnxpb and are
// not part of this package's API.
package onnx
