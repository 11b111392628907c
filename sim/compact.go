package sim

import "fmt"

// Narrow storage for the compiled partitioned simulator. Most values of a
// busy design are a few bits wide (flags, int8 operands, counters), yet
// the value array gives each a 64-bit word: the NPU's 16,000 words are
// 128 KB, and a busy cycle's loads go past the first-level cache. The
// generated code therefore keeps every one-word value of at most 32 bits
// that only it reads and writes in an array of its own width (compact),
// in the value array's order: the same values in a fraction of the bytes,
// as Verilator keeps them.
//
// The value array stays the simulator's state for everything else: the
// interpreter (which takes over in reset edges and while a VCD trace is
// on), its multi-word operators and sink visits, Poke and the constants.
// A value it may touch is never compact. Which array holds the current
// values of the compact slots moves with the code that runs: toCompact
// before generated code, toV before the interpreter (each a copy of a
// few thousand words, paid only when the two change places), and Peek
// and set read and write a compact slot where it lives.

// compact is the narrow storage of one simulator.
type compact struct {
	cls []uint8 // per value-array offset: clsV, or the class of the one-word slot starting there
	idx []int32 // per offset of a compact slot: its index in its class's array
	// offs lists the compact slots' offsets, class by class, in index order.
	offs [clsN][]int32
	c8   []uint8
	c16  []uint16
	c32  []uint32
	// live: the compact arrays hold the current values of their slots
	// (generated code runs); else the value array does.
	live bool
}

// The storage classes of a value-array offset.
const (
	clsV  = iota // in the value array
	cls8         // compact, uint8
	cls16        // compact, uint16
	cls32        // compact, uint32
	clsN
)

// classTypes are the Go element types of the compact classes.
var classTypes = [clsN]string{clsV: "uint64", cls8: "uint8", cls16: "uint16", cls32: "uint32"}

// newCompact chooses the compact slots of a partitioned simulator: the
// one-word slots of at most 32 bits computed by a node or held by a
// sink, unless the interpreter reads or writes them while generated code
// runs (operands and results of multi-word operators, the values of the
// sinks it visits), or they are inputs, rst or constants.
func newCompact(s *Sim) *compact {
	keep := make([]bool, len(s.v)) // offsets that stay in the value array
	keepOff := func(off int32) {
		if off >= 0 {
			keep[off] = true
		}
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.op < wAdd {
			continue
		}
		keepOff(n.dst)
		keepOff(n.a)
		keepOff(n.b)
		keepOff(n.c)
		if n.op == wCat {
			for _, c := range s.cat[n.k : n.k+n.k2] {
				keepOff(c.off)
			}
		}
	}
	for j := range s.sinks {
		k := &s.sinks[j]
		if (k.kind == sinkReg && s.hsinks[j].fast) || s.oneWordRead(int32(j)) || (k.kind == sinkWrite && s.mems[k.mem].nw == 1) {
			continue // committed by generated code
		}
		keepOff(k.off)
		keepOff(k.next)
		keepOff(k.en)
		keepOff(k.addr)
		if k.kind == sinkWrite {
			for _, w := range s.mems[k.mem].writes {
				keepOff(w.addr)
				keepOff(w.data)
				keepOff(w.en)
				keepOff(w.mask)
			}
		}
	}
	owned := make([]bool, len(s.slots)) // computed by a node or held by a sink
	for i := range s.nodes {
		owned[s.nodes[i].slot] = true
	}
	for j := range s.sinks {
		if sl := s.sinks[j].slot; sl >= 0 {
			owned[sl] = true
		}
	}
	c := &compact{cls: make([]uint8, len(s.v)), idx: make([]int32, len(s.v))}
	for id, sl := range s.slots {
		if !owned[id] || s.isConst[id] || int32(id) == s.rstSlot || sl.w > 32 || keep[sl.off] || c.cls[sl.off] != clsV {
			continue
		}
		k := uint8(cls32)
		switch {
		case sl.w <= 8:
			k = cls8
		case sl.w <= 16:
			k = cls16
		}
		c.cls[sl.off] = k
	}
	// Index in value-array order, so values evaluated together stay
	// together (partSlotOrder).
	for off, k := range c.cls {
		if k != clsV {
			c.idx[off] = int32(len(c.offs[k]))
			c.offs[k] = append(c.offs[k], int32(off))
		}
	}
	c.c8 = make([]uint8, len(c.offs[cls8]))
	c.c16 = make([]uint16, len(c.offs[cls16]))
	c.c32 = make([]uint32, len(c.offs[cls32]))
	return c
}

// get is the value of the compact slot at off.
func (c *compact) get(off int32) uint64 {
	i := c.idx[off]
	switch c.cls[off] {
	case cls8:
		return uint64(c.c8[i])
	case cls16:
		return uint64(c.c16[i])
	}
	return uint64(c.c32[i])
}

// put sets the compact slot at off to x (already masked to its width).
func (c *compact) put(off int32, x uint64) {
	i := c.idx[off]
	switch c.cls[off] {
	case cls8:
		c.c8[i] = uint8(x)
	case cls16:
		c.c16[i] = uint16(x)
	default:
		c.c32[i] = uint32(x)
	}
}

// toCompact makes the compact arrays current (generated code is to run).
func (s *Sim) toCompact() {
	if c := s.cl; c != nil && !c.live {
		c.move(s.v, true)
	}
}

// toV makes the value array current (the interpreter is to run).
func (s *Sim) toV() {
	if c := s.cl; c != nil && c.live {
		c.move(s.v, false)
	}
}

// move copies the compact slots' values from v into the compact arrays
// (in) or back.
func (c *compact) move(v []uint64, in bool) {
	moveClass(c.c8, c.offs[cls8], v, in)
	moveClass(c.c16, c.offs[cls16], v, in)
	moveClass(c.c32, c.offs[cls32], v, in)
	c.live = in
}

func moveClass[T uint8 | uint16 | uint32](a []T, offs []int32, v []uint64, in bool) {
	for i, off := range offs {
		if in {
			a[i] = T(v[off])
		} else {
			v[off] = uint64(a[i])
		}
	}
}

// liveCompact reports whether slot id lives in the compact arrays now.
func (s *Sim) liveCompact(id int32) bool {
	return s.cl != nil && s.cl.live && s.cl.cls[s.slots[id].off] != clsV
}

// load is the Go expression, as a uint64, of the value at off in
// generated code: a compact slot's array element or the value array's
// word.
func (g *gen) load(off int32) string {
	if c := g.s.cl; c != nil && off >= 0 && c.cls[off] != clsV {
		return fmt.Sprintf("uint64(z%d[%d])", 8<<(c.cls[off]-1), c.idx[off])
	}
	return fmt.Sprintf("v[%d]", off)
}

// store is the Go statement setting the value at off to the uint64
// expression x in generated code.
func (g *gen) store(off int32, x string) string {
	if c := g.s.cl; c != nil && c.cls[off] != clsV {
		k := c.cls[off]
		return fmt.Sprintf("z%d[%d] = %s(%s)", 8<<(k-1), c.idx[off], classTypes[k], x)
	}
	return fmt.Sprintf("v[%d] = %s", off, x)
}
