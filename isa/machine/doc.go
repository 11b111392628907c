// Package machine is the NPU's reference machine: the task-level
// semantics of every engine's tasks, one task at a time, built on the
// golden models. It is the oracle the hardware is tested against (each
// block's tests compare their Go and Verilator simulations with it) and
// the compiler's (a program is right when the machine's results equal
// the golden models).
//
// It builds no hardware and knows no hardware configuration: it takes
// the sizes the instruction set defines (isa.Sizes, planar.Sizes).
package machine
