// Package planar is the planar engine's part of the instruction set:
// its operations and function codes (the Fns table, with each function's
// attributes such as Unary), the Task struct every planar descriptor
// decodes to, the field table the descriptor is laid out by (Sizes.Fields,
// Encode, Decode), the task's validation with the hardware's error codes,
// and what a task reads and writes. It builds no hardware: blocks/planar
// takes its ports and checks from here, the reference machine
// (isa/machine) its semantics, the compiler its encoder.
//
// Adding an element-wise function is one row of Fns; the hardware lane,
// the golden model and the reference machine's dispatch each have a
// test that fails until they know the new code.
package planar
