package isa

// Descriptor is one task as the task manager receives it: the engine, the
// op code and generic operands. What each operand means is the business
// of the task types (Codec.Encode, Codec.Decode); the task manager's
// layout turns a Descriptor into bits and back.
type Descriptor struct {
	ID     uint64 // task ID: the queue's previous task ID + 1 (mod 2^id_bits)
	Engine Engine // which engine runs it
	Op     Op     // operation code of that engine (Engines[Engine].Ops)
	Flags  uint64 // debug flags, handed to the engine unchanged
	// Hold keeps the task manager's issue on this task's queue: the next
	// task of the queue issues before any other queue's (the inverse of
	// a task-switch flag; false, a switch point, is the default).
	Hold bool
	// Partial makes Deps[0] a partial dependency: the task may start once
	// Deps[0] has started, and its buffer reads wait for Deps[0]'s writes
	// to pass their addresses (a task manager built with partial deps).
	Partial bool
	// Net is the network the task belongs to: it selects the NPU's base
	// pointer for the memory-relative operands (a task manager built
	// with network IDs, net_bits > 0).
	Net uint64
	// SrcMem and DstMem are the source and destination kinds: set, src
	// (dst) is an external-memory line relative to network Net's base
	// pointer; clear, an absolute address (a buffer address, or an
	// external line as it stands).
	SrcMem, DstMem bool
	Deps           []uint64 // IDs of earlier tasks of the same queue this one waits for
	Src            uint64   // address operands (meaning per engine and op)
	Aux            uint64
	Dst            uint64
	D0             uint64 // size operands
	D1             uint64
	D2             uint64
	Param          []uint64 // packed op parameters, 64 bits per word, least significant word first
}

// Based returns d with its memory-relative operands made absolute: src
// (SrcMem) and dst (DstMem) plus the base pointer of network Net (a
// network without one has base 0). The NPU adds the same base in front
// of its DMA engines.
func (d Descriptor) Based(bases []uint64) Descriptor {
	var b uint64
	if d.Net < uint64(len(bases)) {
		b = bases[d.Net]
	}
	if d.SrcMem {
		d.Src += b
	}
	if d.DstMem {
		d.Dst += b
	}
	return d
}
