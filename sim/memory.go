package sim

// Memories and their storage, narrow words packed small.

import "github.com/hwgen/hwgen/hdl"

type memory struct {
	path  string
	typ   hdl.Type
	depth int
	nw    int
	// The contents: depth*nw words in data, or, for words of up to 32
	// bits, one element per word of the narrowest of d8, d16, d32 (the
	// state buffer's bytes take an eighth of the cache).
	data   []uint64
	d8     []uint8
	d16    []uint16
	d32    []uint32
	writes []wport
	reads  []int32 // read-port sinks
	group  int32   // write sink, -1 if no write port
}

func newMemory(path string, t hdl.Type, depth int) *memory {
	m := &memory{path: path, typ: t, depth: depth, nw: nwords(t.Width), group: -1}
	switch w := t.Width; {
	case w <= 8:
		m.d8 = make([]uint8, depth)
	case w <= 16:
		m.d16 = make([]uint16, depth)
	case w <= 32:
		m.d32 = make([]uint32, depth)
	default:
		m.data = make([]uint64, depth*m.nw)
	}
	return m
}

// load returns word addr (< depth) of a one-word memory.
func (m *memory) load(addr int) uint64 {
	switch {
	case m.d8 != nil:
		return uint64(m.d8[addr])
	case m.d16 != nil:
		return uint64(m.d16[addr])
	case m.d32 != nil:
		return uint64(m.d32[addr])
	}
	return m.data[addr]
}

// store sets word addr (< depth) of a one-word memory.
func (m *memory) store(addr int, x uint64) {
	switch {
	case m.d8 != nil:
		m.d8[addr] = uint8(x)
	case m.d16 != nil:
		m.d16[addr] = uint16(x)
	case m.d32 != nil:
		m.d32[addr] = uint32(x)
	default:
		m.data[addr] = x
	}
}

// get copies word addr into d (nw words).
func (m *memory) get(d []uint64, addr int) {
	if m.nw == 1 {
		d[0] = m.load(addr)
		return
	}
	copy(d, m.data[addr*m.nw:(addr+1)*m.nw])
}

// put sets word addr from d (nw words).
func (m *memory) put(addr int, d []uint64) {
	if m.nw == 1 {
		m.store(addr, d[0])
		return
	}
	copy(m.data[addr*m.nw:(addr+1)*m.nw], d)
}
