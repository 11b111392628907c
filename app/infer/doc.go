// Package infer runs a quantized model (frontend/lower.Net) on a stream of
// float inputs through the host pipeline (host/pipeline), in batches:
//
//   - pre: each image of a batch quantized to the NPU's int8 input
//     (lower.Net.QuantizeInput; a NaN, an infinity or a wrong shape
//     fails that batch only);
//   - exec: the batch on one simulated NPU kept alive across batches
//     (host.Session) running a batch program: the weights are in device
//     memory once and every image of a batch has its own input and output
//     region. Compile simulates two candidates once and keeps the faster:
//     compiler.CompileBatch (when the net fits half of each on-chip
//     buffer, each image in its own half, so the images' tasks interleave
//     on the engines) and compiler.Batch's copies one after another;
//   - post: the outputs dequantized (lower.Net.Dequantize), the top-1
//     class taken, and, with Options.Check, every output compared with
//     the compiler's reference machine running the same batch program.
//
// With Options.Devices = N the batches are cut into N consecutive shares,
// each run through a pipeline of its own on a session of its own, all at
// once: a simulator is single-threaded, so N devices keep N cores busy.
//
// Model.Run returns one Result per image, in order, and a Report: per
// device, the pipeline's stage times and period log, and each batch's
// device run (cycles, timeline) for the cycles per image in steady state.
package infer
