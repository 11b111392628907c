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
// FloatOps lists, after the ONNX operator spec of the graph's opset
// (MinOpset to MaxOpset, 1 to 21, older attribute forms included: Add's
// broadcast and axis, BatchNormalization's spatial and is_test, Reshape's
// shape attribute, Softmax's 2-D coercion before 13): the reference that
// quantized results are checked against, that calibration runs on, and
// that runs whole ImageNet networks (the nine of testdata/light) within
// 1e-4 of ONNX Runtime's output range (docs/notes/networks.md). Conv and the pools, the bulk of such a network's
// time, loop without im2col over output rows and share the output planes
// among goroutines. Integer values (shapes, indices) travel as
// Array.Ints, exactly.
//
// Model.Fold simplifies a graph for inference (pass-through ops removed,
// Sum as Adds, constant subgraphs evaluated into initializers);
// Graph.Inference is a copy without the pass-through ops and with the
// Sums of more than two inputs as Adds, for the lowering; RandomWeights gives a model seeded random weights (the light models
// hold one-value stand-ins); Model.Marshal writes a model back as ONNX.
//
// What it does not do: quantization and lowering onto the compiler are
// package lower's; it runs no shape inference (shapes come from running
// the graph); it does not read external tensor data, sparse initializers, subgraphs or model-local
// functions (graph attributes are kept only by kind, so Check rejects the
// ops that carry them). The protobuf types live in package onnxpb and are
// not part of this package's API.
package onnx
