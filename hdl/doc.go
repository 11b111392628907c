// Package hdl is hwgen's netlist DSL: typed signals, expressions, registers,
// memories, modules and instances, checked at elaboration.
//
// A design is built by Go code and then elaborated once:
//
//	m := hdl.NewModule("mac")
//	a := m.Input("a", hdl.SInt(8))
//	b := m.Input("b", hdl.SInt(8))
//	acc := m.Reg("acc", hdl.SInt(32), 0)
//	acc.SetNext(acc.Add(a.Mul(b)).Trunc(32))
//	m.Output("y", hdl.SInt(32)).Set(acc)
//	d, err := hdl.Elaborate(m)
//
// Rules that keep designs honest:
//   - Every value has a type, UInt(w) or SInt(w), 1 <= w <= MaxWidth.
//   - Arithmetic never loses bits: a+b is one bit wider than the wider
//     operand, a*b is wa+wb wide. Narrowing is explicit (Trunc, Slice).
//   - Operands of arithmetic, logic and comparisons share a signedness;
//     AsSInt/AsUInt reinterpret bits when a mix is really meant.
//   - Every module has one implicit clock clk and one synchronous,
//     active-high reset rst. Registers commit on the rising edge.
//   - Memories have synchronous write ports and synchronous read ports:
//     read data appears one cycle after the address.
//
// Construction mistakes (width mismatch, double drivers, undriven outputs,
// unconnected instance ports, bad slices, combinational loops) never panic:
// they are collected and returned by Elaborate, each naming the user's
// source file:line and the signal path.
//
// The elaborated Design is the single input of the Verilog emitter
// (package verilog) and of the simulator (package sim).
package hdl
