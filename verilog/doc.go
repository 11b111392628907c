// Package verilog writes an elaborated hdl.Design as Verilog-2005: one module
// per file, named after the module, byte-identical for the same design.
//
// The output is meant to be read. User signal names are kept; every
// operator node that is not itself a named signal becomes a temporary wire
// prefixed with "_". Because hdl normalises operand widths, every Verilog
// expression is written at exactly its result width, which is what keeps
// `verilator --lint-only -Wall` silent without any lint_off.
//
// Bits that the design computes but never reads (the carry of an add that
// is truncated, an input the module ignores) are gathered into one wire per
// module, `_unused_ok`, following Verilator's documented convention for
// intentionally unused signals (its default --unused-regexp is *unused*).
// Synthesis removes it.
package verilog
