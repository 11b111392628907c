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
// the operators that consume them.
//
// The combinational nodes are cut into supernodes: acyclic groups
// evaluated whole, in order, whenever one of their inputs changed, and
// not at all otherwise (partition.go, partmerge.go). A supernode should
// hold nodes that change together; without a workload to measure, the
// cut estimates that from the structure. A node read by a single
// supernode joins it (maximal fan-out-free cones); the same cone of
// sibling instances of one module (the PEs of an array, the lanes of a
// vector unit, the banks of a buffer), which work in lock step, is one
// supernode of up to 64 nodes, while an instance's different cones (a
// PE's multiply-accumulate, its zero flags, its weight load) stay apart;
// and supernodes woken by the same changes are merged, as evaluating them
// together costs nothing more. Supernodes are numbered in topological
// order, so a forward pass over a bitmap of the dirty ones evaluates each
// at most once per settle, after all it reads: no glitches. Only the
// nodes read outside their supernode compare their result and mark their
// readers.
//
// Registers and memory ports are "sinks", grouped by home: the supernode
// computing a sink's value, or for a register copying another directly
// (a shift or skew stage) that one's home (groups.go). A supernode, when
// evaluated, arms its groups; an input changing arms the groups reading
// it directly. At an edge every armed group commits all its sinks, the
// registers without a branch each, and when any changed marks the union
// of their readers. Sinks are numbered so that each can be updated in
// place: a sink that reads another register or read port directly comes
// first, the reads of a memory come before its writes, and only sinks on
// a cycle of such reads stage their value until the end of the edge; a
// group is a run of sinks of one home in that order. Values are laid out
// supernode by supernode, each followed by the state of its groups. When
// nothing is due, a Step only counts the cycle (an idle design costs next
// to nothing; see Stats).
//
// The interpreter walks a supernode by runs of one operator, one
// dispatch per run. NewWith(d, Options{Compiled: true}) (or New with
// HWGEN_SIM=compiled in the environment) generates Go source for the same
// partition instead and builds it with the go command as a plugin,
// cached by content hash: a function per supernode and per group (small
// ones inline in the dispatch), straight-line code with constant offsets,
// masks and marks (no mask where the result already fits), values read
// only inside a supernode in locals, the nodes of a supernode whose
// readers are the same compared without a branch each and their readers
// marked once, one-word memories read and written in place. Nodes stay
// in topological order: a supernode's loads then start together, which
// matters more than the spills it costs. Its one-word values of up to
// 32 bits live in arrays of their own width (uint8, uint16, uint32) while
// it runs, so that a busy cycle's loads stay in the first-level cache
// (compact.go); the values the interpreter may touch meanwhile stay in
// the value array. It runs 2 to 3 times as fast as the interpreter on
// large designs, for a build of seconds the first time. The state and
// the API are the interpreter's, which takes over while a VCD trace is on
// or rst is high: the narrow values move back into the value array then,
// and Peek reads them wherever they are.
//
// Options{Event: true}, or HWGEN_SIM=event in the environment, selects
// the per-register simulator that preceded the partitioned one: every
// node and every sink scheduled on its own through dirty bitmaps (nodes
// by level and operator; compiled, by fan-out-free trees). It computes
// the same values, slower on busy designs, and is kept to bisect a
// mismatch: a difference between the two modes is a simulator bug.
// HWGEN_SIM is a comma-separated list: HWGEN_SIM=event,compiled selects
// the per-register simulator's compiled form.
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
