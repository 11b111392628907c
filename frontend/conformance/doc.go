// Package conformance runs the ONNX backend node tests (the official
// per-operator tests with their expected outputs, as Debian's
// libonnx-testdata ships them) on the NPU and sorts each into pass, fail
// (by how many output steps, and why) or unsupported (why).
//
// A test is one node with its inputs and expected outputs. The runner
// builds the compiler graph that computes the node on the NPU from the
// test's own input values (weights and zero points included: every
// input is a constant of one run), compiles it, runs it on an Engine
// (the reference machine, or the Go simulator) and compares with the
// expected output exactly. What the NPU computes is integer: the
// integer ops (ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul)
// run as they are, with the zero points subtracted by the host, an
// element width that holds the shifted values (9 bits for uint8 data)
// and integer results leaving as int32 (compiler.Conv.Int32, GEMMInt32);
// float tests run when every value is an integer that fits, and are
// unsupported otherwise. QuantizeLinear and DequantizeLinear are the
// host's conversions at the NPU's boundary (it has no float datapath):
// they run on the host functions of frontend/quant and say so.
package conformance
