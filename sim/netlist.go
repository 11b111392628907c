package sim

// The records of the flattened netlist: nodes (combinational operators),
// sinks (state updated at the clock edge), their fan-out, slots and
// named signals.

import "github.com/hwgen/hwgen/hdl"

// opcode selects the evaluation of a node; the opcodes are generated from
// the operator table (ops_gen.go).
type opcode uint8

//go:generate go run ./internal/optab/gen

// wideOf maps a narrow opcode to its multi-word twin.
func wideOf(op opcode) opcode { return op - nAdd + wAdd }

// node is one combinational operator. Operands and result are word
// offsets into Sim.v; widths are in bits.
type node struct {
	op   opcode
	w    int32 // result width
	dst  int32 // result offset
	a    int32
	b    int32
	c    int32
	aw   int32 // width of operand a (b for shift amounts is bw)
	bw   int32
	k    int32     // slice low bit, constant shift amount, first cat argument
	k2   int32     // number of cat arguments
	slot int32     // result slot (for the VCD)
	mk   markRange // fan-out marks
	// sa, sb sign-extend operands a and b to 64 bits before a narrow
	// arithmetic or compare node uses them (0: use the bits as stored,
	// i.e. zero-extended). They let a node read a narrower value through
	// a folded Ext instead of waiting for a separate extension node.
	sa, sb uint8
}

// mark sets bits m in word w of Sim.bits (a dirty bitmap or summary).
type mark struct {
	w int32
	m uint64
}

// markRange is a fan-out as marks: Sim.marks[lo:hi].
type markRange struct{ lo, hi int32 }

// fanRange locates the fan-out of a slot in Sim.fanout: nodes in
// [node, sink), sorted, then sinks in [sink, end).
type fanRange struct{ node, sink, end int32 }

// slot is a value: a range of words in Sim.v.
type slot struct {
	off int32
	w   int32
}

// catArg is one operand of a Cat, most significant first.
type catArg struct {
	off int32
	w   int32
}

const (
	sinkReg uint8 = iota
	sinkRead
	sinkWrite // all write ports of one memory
)

// sink is state updated at the clock edge: a register, a memory read port,
// or the write ports of a memory.
type sink struct {
	kind uint8
	slot int32 // reg or read data slot
	off  int32
	nw   int32
	next int32     // reg: offset of the next value, -1 = holds
	en   int32     // offset of the enable, -1 = always
	addr int32     // read: offset of the address
	mem  int32     // read, write: memory index
	init int32     // reg: offset of the reset value in Sim.inits; -1: no reset
	mk   markRange // fan-out marks
	// staged: on a cycle of direct state reads (see orderSinks), so the
	// new value is committed after all other sinks.
	staged bool
}

type wport struct {
	addr, data, en, mask int32 // offsets; mask -1 = all bits
}

// sigInfo describes one named signal, for Peek and the VCD.
type sigInfo struct {
	name  string
	path  string
	scope int32
	slot  int32
	typ   hdl.Type
	kind  hdl.SignalKind
}

// scopeInfo is one instance of the flattened hierarchy.
type scopeInfo struct {
	name   string // instance name; the top module's name for the top
	parent int32  // -1 for the top
}

func nwords(w int) int { return (w + 63) >> 6 }
