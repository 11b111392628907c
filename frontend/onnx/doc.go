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
// OpTable is the one list of the ONNX ops hwgen supports, with what each
// part of the frontend does with each; SupportedOps, FloatOps, the
// lowering's and the conformance runner's lists, the help texts of hwgen
// run and hwgen conformance, and docs/onnx-ops.md (go generate) derive from
// it.
//
// Graph.Execute and Graph.Run evaluate a graph in float for the ops
// FloatOps lists (mnist-7's, the other ops the NPU takes, and the shape
// computations exporters emit, such as the Shape, Gather, Unsqueeze,
// Concat and Reshape of PyTorch's x.view(x.size(0), -1)), after the ONNX
// operator spec for opsets MinOpset to MaxOpset (7 to 18): a plain, slow
// reference executor that quantized results are
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
