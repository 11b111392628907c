// Package workload is the named workloads `hwgen sim` and `hwgen bench`
// run: one tensor operation (gemm, conv2d, transpose, pool, eltwise,
// reduce) or the small built-in network, with its shapes, defaults,
// checks and seeded random inputs, built into a compiler.Graph; and the
// choice of engine of `hwgen sim --accel auto` (PickAccel). It is built
// on the compiler, which does not know it.
package workload
