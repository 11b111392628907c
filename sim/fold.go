package sim

// Node creation: common subexpressions are shared and operators on
// constants are folded.

// nodeKey identifies an operator applied to values (slots), for CSE.
type nodeKey struct {
	op      opcode
	sa, sb  uint8
	w, k    int32
	k2      int32
	a, b, c int32
}

// node appends an operator node over the given source slots and returns
// its result slot. The narrow opcode is turned into the wide one when the
// result or any operand does not fit a word.
func (b *builder) node(op opcode, w int, srcs ...int32) int32 {
	return b.nodeK(op, w, 0, 0, srcs...)
}

// nodeK is node with the constant fields k and k2 (slice low bit, shift
// amount, cat argument range).
func (b *builder) nodeK(op opcode, w int, k, k2 int32, srcs ...int32) int32 {
	return b.nodeX(op, w, k, k2, 0, 0, srcs...)
}

// nodeX is nodeK with operand sign-extension shifts (see node.sa).
func (b *builder) nodeX(op opcode, w int, k, k2 int32, sa, sb uint8, srcs ...int32) int32 {
	wide := w > 64
	for _, sid := range srcs {
		if b.width(sid) > 64 {
			wide = true
		}
	}
	if wide {
		op = wideOf(op)
	}
	// The same operator on the same values is the same value: computed
	// once (instances repeat logic, and the DSL does not share x.Not()).
	var key nodeKey
	if op != nCat && op != wCat {
		key = nodeKey{op: op, sa: sa, sb: sb, w: int32(w), k: k, k2: k2, a: -1, b: -1, c: -1}
		for i, sid := range srcs {
			*[]*int32{&key.a, &key.b, &key.c}[i] = sid
		}
		if id, ok := b.cse[key]; ok {
			return id
		}
	}
	id := b.newSlot(w)
	if op != nCat && op != wCat {
		b.cse[key] = id
	}
	n := node{op: op, w: int32(w), dst: b.off(id), slot: id, a: -1, b: -1, c: -1, k: k, k2: k2, sa: sa, sb: sb}
	if op != nCat && op != wCat {
		ptr := []*int32{&n.a, &n.b, &n.c}
		wid := []*int32{&n.aw, &n.bw, nil}
		for i, sid := range srcs {
			*ptr[i] = b.off(sid)
			if wid[i] != nil {
				*wid[i] = int32(b.width(sid))
			}
		}
	}
	folded := len(srcs) > 0
	for _, sid := range srcs {
		folded = folded && b.isConst[sid]
	}
	if folded {
		// Operands that never change: compute once, keep no node.
		b.s.eval(&n)
		b.isConst[id] = true
		return id
	}
	b.s.producer[id] = int32(len(b.s.nodes))
	b.s.nodes = append(b.s.nodes, n)
	b.nodeSrc = append(b.nodeSrc, srcs)
	b.origin = append(b.origin, nil) // set by expr, which knows the expression
	return id
}
