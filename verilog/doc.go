// Package verilog writes an elaborated hdl.Design as Verilog-2005: one module
// per file, named after the module, byte-identical for the same design.
//
// The output is meant to be read. User signal names are kept. An operator
// node read in one place is written out there, in parentheses, when
// Verilog evaluates it at its own width (hdl normalises operand widths, so
// that is every context-determined operand, every self-determined one, and
// every root as wide as the node); its signedness is pinned with $signed
// or $unsigned where the spelling alone would differ (a sign-extension is
// a concatenation, which Verilog takes as unsigned). Operators read in
// several places, those whose bits are selected (Verilog-2005 cannot
// select bits of an expression) and operands whose text would exceed 100
// characters become temporary wires prefixed with "_", one per distinct
// expression in a module, unless the expression drives a wire or output:
// then the other readers read that name. A select of a name is written
// wherever it is read. Every Verilog expression is thus evaluated at exactly its result
// width, which is what keeps `verilator --lint-only -Wall` silent without
// any lint_off.
//
// Bits that the design computes but never reads (the carry of an add that
// is truncated, an input the module ignores) are gathered into one wire per
// module, `_unused_ok`, following Verilator's documented convention for
// intentionally unused signals (its default --unused-regexp is *unused*).
// Synthesis removes it.
package verilog
