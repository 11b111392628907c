package sim

// Flattening the hierarchy: scopes, named signals, registers, memories
// and expressions resolved to slots.

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/hwgen/hwgen/hdl"
)

// scope is an instance while the netlist is built.
type scope struct {
	idx    int32
	mod    *hdl.Module
	prefix string // "" for the top, "u_a.u_b." below
	parent *scope
	inst   *hdl.Instance // how the parent instantiates it
	kids   map[*hdl.Instance]*scope
	sig    map[*hdl.Signal]int32
	expr   map[*hdl.Expr]int32
}

const busy = -2 // signal under resolution: only a combinational loop revisits it

func (b *builder) newScope(m *hdl.Module, parent *scope, inst *hdl.Instance, prefix string) *scope {
	sc := &scope{idx: int32(len(b.scopes)), mod: m, prefix: prefix, parent: parent, inst: inst,
		kids: map[*hdl.Instance]*scope{}, sig: map[*hdl.Signal]int32{}, expr: map[*hdl.Expr]int32{}}
	b.scopes = append(b.scopes, sc)
	info := scopeInfo{name: m.Name, parent: -1}
	if parent != nil {
		info = scopeInfo{name: inst.Name, parent: parent.idx}
	}
	b.s.scopes = append(b.s.scopes, info)
	for _, in := range m.Insts {
		kid := b.newScope(in.Module, sc, in, prefix+in.Name+".")
		sc.kids[in] = kid
	}
	return sc
}

// scopeBody resolves every named signal, register and memory of sc.
func (b *builder) scopeBody(sc *scope) {
	s := b.s
	for _, sig := range sc.mod.Signals {
		id := b.signal(sc, sig)
		path := sc.prefix + sig.Name
		s.byPath[path] = int32(len(s.sigs))
		s.sigs = append(s.sigs, sigInfo{name: sig.Name, path: path, scope: sc.idx, slot: id, typ: sig.Type, kind: sig.Kind})
	}
	for _, sig := range sc.mod.Signals {
		if sig.Kind != hdl.Reg {
			continue
		}
		id := sc.sig[sig]
		k := sink{kind: sinkReg, slot: id, off: b.off(id), nw: int32(nwords(sig.Type.Width)), next: -1, en: -1}
		k.init = -1 // no reset: rst does not touch it
		if sig.Init != nil {
			k.init = int32(len(s.inits))
			s.inits = append(s.inits, make([]uint64, k.nw)...)
			bigToWords(s.inits[k.init:k.init+k.nw], sig.Init, sig.Type.Width)
		}
		// Not the register's own slot: holding yields what the last visit
		// committed, so only rst, enable and next can make a visit useful.
		srcs := []int32{s.rstSlot}
		if sig.Next != nil {
			n := b.expr(sc, sig.Next)
			k.next = b.off(n)
			srcs = append(srcs, n)
		}
		if sig.Enable != nil {
			e := b.expr(sc, sig.Enable)
			k.en = b.off(e)
			srcs = append(srcs, e)
		}
		b.addSink(k, srcs)
	}
	for _, m := range sc.mod.Mems {
		mi := int32(len(s.mems))
		mem := newMemory(sc.prefix+m.Name, m.Type, m.Depth)
		s.mems = append(s.mems, mem)
		s.memByPath[mem.path] = mi
		var wsrc []int32
		for _, w := range m.Writes {
			a, d, e := b.expr(sc, w.Addr), b.expr(sc, w.Data), b.expr(sc, w.En)
			p := wport{addr: b.off(a), data: b.off(d), en: b.off(e), mask: -1}
			wsrc = append(wsrc, a, d, e)
			if w.Mask != nil {
				mk := b.expr(sc, w.Mask)
				p.mask = b.off(mk)
				wsrc = append(wsrc, mk)
			}
			mem.writes = append(mem.writes, p)
		}
		if len(m.Writes) > 0 {
			mem.group = b.addSink(sink{kind: sinkWrite, mem: mi, slot: -1, next: -1, en: -1}, wsrc)
		}
		for _, r := range m.Reads {
			id := sc.sig[r.Data]
			a := b.expr(sc, r.Addr)
			if b.width(a) > 64 {
				b.fail("%s: read address wider than 64 bits", mem.path)
			}
			k := sink{kind: sinkRead, slot: id, off: b.off(id), nw: int32(mem.nw), next: -1, en: -1, addr: b.off(a), mem: mi}
			srcs := []int32{a}
			if r.En != nil {
				e := b.expr(sc, r.En)
				k.en = b.off(e)
				srcs = append(srcs, e)
			}
			mem.reads = append(mem.reads, b.addSink(k, srcs))
		}
		for _, w := range m.Writes {
			if b.width(b.expr(sc, w.Addr)) > 64 {
				b.fail("%s: write address wider than 64 bits", mem.path)
			}
		}
	}
}

// where names a scope in messages: module and instance path.
func (b *builder) where(sc *scope) string {
	if sc.prefix == "" {
		return "module " + sc.mod.Name
	}
	return fmt.Sprintf("module %s (instance %s)", sc.mod.Name, strings.TrimSuffix(sc.prefix, "."))
}

// signal returns the slot of a named signal of sc, resolving aliases
// through drivers, instance ports and instance outputs.
func (b *builder) signal(sc *scope, sig *hdl.Signal) int32 {
	if id, ok := sc.sig[sig]; ok {
		if id == busy {
			b.fail("combinational loop through %s%s", sc.prefix, sig.Name)
		}
		return id
	}
	sc.sig[sig] = busy
	var id int32
	switch sig.Kind {
	case hdl.Input:
		drv := sc.inst.Inputs[sig.Name]
		if drv == nil {
			b.fail("input %s%s is not connected", sc.prefix, sig.Name)
		}
		id = b.expr(sc.parent, drv)
	case hdl.Output, hdl.Wire:
		if sig.Driver == nil {
			b.fail("%s%s is not driven", sc.prefix, sig.Name)
		}
		id = b.expr(sc, sig.Driver)
	case hdl.InstOut:
		kid := sc.kids[sig.Inst]
		if kid == nil {
			b.fail("%s%s: unknown instance", sc.prefix, sig.Name)
		}
		p := kid.mod.Port(sig.Port)
		if p == nil || p.Kind != hdl.Output {
			b.fail("%s%s: module %s has no output %s", sc.prefix, sig.Name, kid.mod.Name, sig.Port)
		}
		id = b.signal(kid, p)
	default:
		b.fail("%s%s: unexpected %s", sc.prefix, sig.Name, sig.Kind)
	}
	if b.width(id) != sig.Type.Width {
		b.fail("%s%s: driver is %d bits, signal is %s", sc.prefix, sig.Name, b.width(id), sig.Type)
	}
	sc.sig[sig] = id
	return id
}

func (b *builder) constant(t hdl.Type, v *big.Int) int32 {
	key := fmt.Sprintf("%d:%x", t.Width, v)
	if id, ok := b.consts[key]; ok {
		return id
	}
	id := b.newSlot(t.Width)
	bigToWords(b.s.words(id), v, t.Width)
	b.isConst[id] = true
	b.consts[key] = id
	return id
}

// expr returns the slot holding x in scope sc, building its node.
func (b *builder) expr(sc *scope, x *hdl.Expr) int32 {
	if id, ok := sc.expr[x]; ok {
		return id
	}
	prev := b.cur
	b.cur = sc
	defer func() { b.cur = prev }()
	var id int32
	switch x.Op {
	case hdl.OpSignal:
		id = b.signal(sc, x.Sig)
	case hdl.OpConst:
		id = b.constant(x.Type, x.Const)
	case hdl.OpAsSInt, hdl.OpAsUInt:
		id = b.expr(sc, x.Args[0])
	case hdl.OpExt:
		a := b.expr(sc, x.Args[0])
		if b.width(a) == x.Type.Width {
			id = a
			break
		}
		op := nCopy
		if x.Args[0].Type.Signed {
			op = nSext
		}
		id = b.node(op, x.Type.Width, a)
	default:
		id = b.operator(sc, x)
	}
	if p := b.s.producer[id]; p >= 0 && b.origin[p] == nil {
		b.origin[p] = x
	}
	if b.width(id) != x.Type.Width {
		b.fail("%s: %s node at %s is %d bits, its type is %s", b.where(sc), x.Op, x.Pos, b.width(id), x.Type)
	}
	sc.expr[x] = id
	return id
}
