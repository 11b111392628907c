// Package isa is the NPU's instruction set: the one place that knows the
// engines, their operation codes, the task descriptor's operands, the
// packed parameter layouts, the limits of every field, and which memory
// each operand of each operation addresses.
//
// A task is a Go value of one of the task types (Load, LoadWeights,
// Store, Conv, Transpose, PlanarTask, Nop). A Codec, made from the sizes of
// one NPU configuration, encodes a task into a Descriptor (the record the
// task manager's layout turns into bits) and decodes a descriptor back
// into a task. Everything else derives from here: the task manager's
// op-code check and every engine's op-field width (hardware), the
// compiler's encoder, the reference machine, the relocation of a program
// into another engine's slice, and the documentation's op table.
//
// The package builds no hardware. It takes the planar engine's task model
// (planar.Task and its validation) from blocks/planar, whose op and
// function codes are the planar entries of the op table.
package isa
