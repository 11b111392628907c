// Package sim is an event-driven, two-state, cycle-based simulator of an
// elaborated hdl.Design.
//
// Its semantics are those of Verilator run with --x-assign 0 --x-initial 0
// on the Verilog that package verilog emits for the same design:
// everything (registers, memories, inputs) starts at 0, registers and
// memory ports commit on the rising edge of the implicit clock clk, the
// implicit reset rst is synchronous and active high, and combinational
// logic settles between edges.
//
// # How it runs
//
// New flattens the hierarchy once into flat arrays: every value lives in
// a slot of one []uint64 (one word up to 64 bits, little-endian words
// above), every operator is a small struct {op, dst, srcs, widths}
// evaluated by a switch, constant subexpressions are folded, common ones
// are computed once, and extensions and truncations are read through by
// the operators that consume them. The combinational nodes are numbered
// in a topological order: by level and, within a level, by operator, so
// the interpreter's dispatch meets runs of the same operator. Values are
// laid out instance by instance (registers, then node results), so what
// one instance touches shares cache lines.
//
// A change of a slot (a Poke, a register commit, a memory read) sets the
// bits of its fan-out in a dirty bitmap, as precomputed (word, bits)
// marks; settling scans the bitmap forward, and since a node's fan-out
// always has a higher number it is picked up in the same pass: each node
// is evaluated at most once per settle, after all of its operands, so
// there are no glitches. Registers and memory ports are "sinks": they are
// visited at an edge only when one of their inputs (or rst, or for reads
// the memory contents) changed since their last visit. Sinks are numbered
// so that each can be updated in place at the edge: a sink that reads
// another register or read port directly comes first, the reads of a
// memory come before its writes, and only sinks on a cycle of such reads
// stage their value until the end of the edge. When nothing is due, a
// Step costs a few nanoseconds (an idle design costs next to nothing; see
// Stats).
//
// NewWith(d, Options{Compiled: true}) (or New with HWGEN_SIM=compiled in
// the environment) also generates Go source for the settle and builds it
// with the go command as a plugin, cached by content hash. There, nodes
// are numbered in tree order instead (a node read by exactly one other
// node and by no register is internal to the tree of its reader; each
// tree is contiguous, ending with its root), each 64-node word becomes a
// function of straight-line tests, one per tree, and a dirty tree is
// evaluated whole as Go expressions with constant offsets, masks and
// fan-out bits. It runs 1.5 to 2 times as fast as the interpreter on
// large designs, for a build of seconds the first time. The state, the
// edges and the API are the interpreter's; a VCD trace switches back to
// the interpreter.
//
// Named signals that are mere aliases (a wire driven by a signal, an
// output driven by an instance output, AsSInt/AsUInt) share a slot; every
// named signal stays addressable by its dotted path from the top:
// "acc", "u_pe.acc", "u_row0.u_pe3.w". Memories too: "u_buf.mem".
//
// # Timing
//
// Cycle() counts rising edges. Values poked before Step(1) are sampled by
// that edge: Step settles, lets the clock rise, commits registers and
// memories, and settles again, so a Peek after Step sees the registers'
// new values and their combinational fan-out.
//
// In a VCD trace (DumpVCD) time is in ns with a 10 ns clock: rising edge n
// is at time 10n, clk falls at 10n+5. Register outputs change at 10n;
// inputs poked between edge n and edge n+1 (and their combinational
// fan-out) appear at 10n+5, the falling edge, as a testbench that drives
// inputs on the falling edge would show them.
package sim
