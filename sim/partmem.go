package sim

import "fmt"

// Memories in the generated code of the partitioned simulator: one-word
// memories are read and written in place, through the typed slices Bind
// receives (Sim.memWords); wider ones call back into the interpreter.

// memType is the Go element type of a one-word memory's storage, "" for
// a wider memory.
func memType(m *memory) string {
	switch {
	case m.nw != 1:
		return ""
	case m.d8 != nil:
		return "uint8"
	case m.d16 != nil:
		return "uint16"
	case m.d32 != nil:
		return "uint32"
	}
	return "uint64"
}

// memFields declares the memories' storage in the plugin's state.
func (g *gen) memFields() {
	for i, m := range g.s.mems {
		if t := memType(m); t != "" {
			g.p("\tm%d []%s\n", i, t)
		}
	}
}

// memBind ties the memories' storage to the state p.
func (g *gen) memBind() {
	for i, m := range g.s.mems {
		if t := memType(m); t != "" {
			g.p("\tp.m%d = mems[%d].([]%s)\n", i, i, t)
		}
	}
}

// readPort commits read port k (oneWordRead) like visit: when enabled,
// the word at its address (0 beyond the memory), its change folded into
// the group's c.
func (g *gen) readPort(k *sink, ind string) {
	m := g.s.mems[k.mem]
	inner := ind
	if k.en >= 0 {
		g.p("%sif %s != 0 {\n", ind, g.load(k.en))
		inner += "\t"
	}
	g.p("%svar x uint64\n%sif a := %s; a < %d {\n%s\tx = uint64(p.m%d[a])\n%s}\n", inner, inner, g.load(k.addr), m.depth, inner, k.mem, inner)
	g.p("%so := %s\n%s%s\n%sc |= x ^ o\n", inner, g.load(k.off), inner, g.store(k.off, "x"), inner)
	if k.en >= 0 {
		g.p("%s}\n", ind)
	}
}

// writePorts applies the write ports of memory mi like writeMem: port by
// port, and when a word changed, the memory's read ports are due at the
// next edge.
func (g *gen) writePorts(mi int32, ind string) {
	s := g.s
	m := s.mems[mi]
	t := memType(m)
	g.p("%s{\n%s\tch := false\n", ind, ind)
	for _, w := range m.writes {
		g.p("%s\tif %s != 0 {\n%s\t\tif a := %s; a < %d {\n", ind, g.load(w.en), ind, g.load(w.addr), m.depth)
		x := fmt.Sprintf("%s(%s)", t, g.load(w.data))
		if w.mask >= 0 {
			x = fmt.Sprintf("p.m%d[a]&^%s(%s) | %s(%s)&%s(%s)", mi, t, g.load(w.mask), t, g.load(w.data), t, g.load(w.mask))
		}
		g.p("%s\t\t\tif x := %s; p.m%d[a] != x {\n%s\t\t\t\tp.m%d[a], ch = x, true\n%s\t\t\t}\n%s\t\t}\n%s\t}\n",
			ind, x, mi, ind, mi, ind, ind, ind)
	}
	g.p("%s\tif ch {\n", ind)
	words := map[int32]uint64{}
	var order []int32
	for _, r := range m.reads {
		gi := s.groupOf[r]
		w := int32(len(s.dirty)) + gi>>6
		if _, ok := words[w]; !ok {
			order = append(order, w)
		}
		words[w] |= 1 << uint(gi&63)
	}
	for _, w := range order {
		g.p("%s\t\tb[%d] |= %#x\n", ind, w, words[w])
	}
	g.p("%s\t}\n%s}\n", ind, ind)
}
