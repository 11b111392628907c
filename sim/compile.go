package sim

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hwgen/hwgen/hdl"
)

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
	init int32     // reg: offset of the reset value in Sim.inits
	mk   markRange // fan-out marks
	// staged: on a cycle of direct state reads (see orderSinks), so the
	// new value is committed after all other sinks.
	staged bool
}

type wport struct {
	addr, data, en, mask int32 // offsets; mask -1 = all bits
}

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

// scope is an instance during compilation.
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

// nodeKey identifies an operator applied to values (slots), for CSE.
type nodeKey struct {
	op      opcode
	sa, sb  uint8
	w, k    int32
	k2      int32
	a, b, c int32
}

type compiler struct {
	cur       *scope  // the scope whose expressions are being built
	slotScope []int32 // per slot, the scope that made it (-1: none)
	one       int32   // a constant 1 (the enable of registers without one)
	s         *Sim
	cse       map[nodeKey]int32
	isConst   []bool // per slot: a literal or a folded constant expression
	consts    map[string]int32
	nodeSrc   [][]int32
	sinkSrc   [][]int32
	scopes    []*scope
	// trees selects the node order for compiled code (treeOrder); the
	// interpreter's is levelOrder.
	trees bool
	// internal marks the nodes whose only reader is one narrow node (no
	// sink, no other node): compiled code evaluates them inside the tree
	// of their reader. All false in level order.
	internal []bool
}

func nwords(w int) int { return (w + 63) >> 6 }

func (c *compiler) newSlot(w int) int32 {
	s := c.s
	id := int32(len(s.slots))
	sc := int32(-1)
	if c.cur != nil {
		sc = c.cur.idx
	}
	c.slotScope = append(c.slotScope, sc)
	s.slots = append(s.slots, slot{off: int32(len(s.v)), w: int32(w)})
	s.producer = append(s.producer, -1)
	s.v = append(s.v, make([]uint64, nwords(w))...)
	c.isConst = append(c.isConst, false)
	return id
}

func (c *compiler) off(id int32) int32 { return c.s.slots[id].off }
func (c *compiler) width(id int32) int { return int(c.s.slots[id].w) }

// compile flattens d into s.
func compile(s *Sim, d *hdl.Design, trees bool) (err error) {
	c := &compiler{s: s, consts: map[string]int32{}, trees: trees, cse: map[nodeKey]int32{}}
	// Constant folding evaluates nodes while compiling.
	s.tmp = make([]uint64, nwords(hdl.MaxWidth))
	s.tmp2 = make([]uint64, nwords(hdl.MaxWidth))
	defer func() {
		// Resolution recurses through the whole netlist; an inconsistency in
		// an elaborated design is reported, not crashed on.
		if r := recover(); r != nil {
			if e, ok := r.(compileError); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	s.rstSlot = c.newSlot(1)
	c.one = c.constant(hdl.Bool, big.NewInt(1))
	top := c.newScope(d.Top, nil, nil, "")
	// State first, so registers and read data sit together in memory.
	for _, sc := range c.scopes {
		c.cur = sc
		for _, sig := range sc.mod.Signals {
			switch {
			case sig.Kind == hdl.Input && sc.parent == nil:
				id := c.newSlot(sig.Type.Width)
				sc.sig[sig] = id
				s.inputs = append(s.inputs, Port{Name: sig.Name, Type: sig.Type})
			case sig.Kind == hdl.Reg || sig.Kind == hdl.MemRead:
				sc.sig[sig] = c.newSlot(sig.Type.Width)
			}
		}
	}
	c.cur = nil
	for _, sig := range top.mod.Ports {
		if sig.Kind == hdl.Output {
			s.outputs = append(s.outputs, Port{Name: sig.Name, Type: sig.Type})
		}
	}
	for _, sc := range c.scopes {
		c.scopeBody(sc)
	}
	c.link()
	return nil
}

type compileError struct{ msg string }

func (e compileError) Error() string { return "sim: " + e.msg }

func (c *compiler) fail(format string, args ...any) {
	panic(compileError{fmt.Sprintf(format, args...)})
}

func (c *compiler) newScope(m *hdl.Module, parent *scope, inst *hdl.Instance, prefix string) *scope {
	sc := &scope{idx: int32(len(c.scopes)), mod: m, prefix: prefix, parent: parent, inst: inst,
		kids: map[*hdl.Instance]*scope{}, sig: map[*hdl.Signal]int32{}, expr: map[*hdl.Expr]int32{}}
	c.scopes = append(c.scopes, sc)
	info := scopeInfo{name: m.Name, parent: -1}
	if parent != nil {
		info = scopeInfo{name: inst.Name, parent: parent.idx}
	}
	c.s.scopes = append(c.s.scopes, info)
	for _, in := range m.Insts {
		kid := c.newScope(in.Module, sc, in, prefix+in.Name+".")
		sc.kids[in] = kid
	}
	return sc
}

// scopeBody resolves every named signal, register and memory of sc.
func (c *compiler) scopeBody(sc *scope) {
	s := c.s
	for _, sig := range sc.mod.Signals {
		id := c.signal(sc, sig)
		path := sc.prefix + sig.Name
		s.byPath[path] = int32(len(s.sigs))
		s.sigs = append(s.sigs, sigInfo{name: sig.Name, path: path, scope: sc.idx, slot: id, typ: sig.Type, kind: sig.Kind})
	}
	for _, sig := range sc.mod.Signals {
		if sig.Kind != hdl.Reg {
			continue
		}
		id := sc.sig[sig]
		k := sink{kind: sinkReg, slot: id, off: c.off(id), nw: int32(nwords(sig.Type.Width)), next: -1, en: -1}
		k.init = int32(len(s.inits))
		s.inits = append(s.inits, make([]uint64, k.nw)...)
		if sig.Init != nil {
			bigToWords(s.inits[k.init:k.init+k.nw], sig.Init, sig.Type.Width)
		}
		// Not the register's own slot: holding yields what the last visit
		// committed, so only rst, enable and next can make a visit useful.
		srcs := []int32{s.rstSlot}
		if sig.Next != nil {
			n := c.expr(sc, sig.Next)
			k.next = c.off(n)
			srcs = append(srcs, n)
		}
		if sig.Enable != nil {
			e := c.expr(sc, sig.Enable)
			k.en = c.off(e)
			srcs = append(srcs, e)
		}
		c.addSink(k, srcs)
	}
	for _, m := range sc.mod.Mems {
		mi := int32(len(s.mems))
		mem := newMemory(sc.prefix+m.Name, m.Type, m.Depth)
		s.mems = append(s.mems, mem)
		s.memByPath[mem.path] = mi
		var wsrc []int32
		for _, w := range m.Writes {
			a, d, e := c.expr(sc, w.Addr), c.expr(sc, w.Data), c.expr(sc, w.En)
			p := wport{addr: c.off(a), data: c.off(d), en: c.off(e), mask: -1}
			wsrc = append(wsrc, a, d, e)
			if w.Mask != nil {
				mk := c.expr(sc, w.Mask)
				p.mask = c.off(mk)
				wsrc = append(wsrc, mk)
			}
			mem.writes = append(mem.writes, p)
		}
		if len(m.Writes) > 0 {
			mem.group = c.addSink(sink{kind: sinkWrite, mem: mi, slot: -1, next: -1, en: -1}, wsrc)
		}
		for _, r := range m.Reads {
			id := sc.sig[r.Data]
			a := c.expr(sc, r.Addr)
			if c.width(a) > 64 {
				c.fail("%s: read address wider than 64 bits", mem.path)
			}
			k := sink{kind: sinkRead, slot: id, off: c.off(id), nw: int32(mem.nw), next: -1, en: -1, addr: c.off(a), mem: mi}
			srcs := []int32{a}
			if r.En != nil {
				e := c.expr(sc, r.En)
				k.en = c.off(e)
				srcs = append(srcs, e)
			}
			mem.reads = append(mem.reads, c.addSink(k, srcs))
		}
		for _, w := range m.Writes {
			if c.width(c.expr(sc, w.Addr)) > 64 {
				c.fail("%s: write address wider than 64 bits", mem.path)
			}
		}
	}
}

// where names a scope in messages: module and instance path.
func (c *compiler) where(sc *scope) string {
	if sc.prefix == "" {
		return "module " + sc.mod.Name
	}
	return fmt.Sprintf("module %s (instance %s)", sc.mod.Name, strings.TrimSuffix(sc.prefix, "."))
}

func (c *compiler) addSink(k sink, srcs []int32) int32 {
	c.s.sinks = append(c.s.sinks, k)
	c.sinkSrc = append(c.sinkSrc, srcs)
	return int32(len(c.s.sinks) - 1)
}

// signal returns the slot of a named signal of sc, resolving aliases
// through drivers, instance ports and instance outputs.
func (c *compiler) signal(sc *scope, sig *hdl.Signal) int32 {
	if id, ok := sc.sig[sig]; ok {
		if id == busy {
			c.fail("combinational loop through %s%s", sc.prefix, sig.Name)
		}
		return id
	}
	sc.sig[sig] = busy
	var id int32
	switch sig.Kind {
	case hdl.Input:
		drv := sc.inst.Inputs[sig.Name]
		if drv == nil {
			c.fail("input %s%s is not connected", sc.prefix, sig.Name)
		}
		id = c.expr(sc.parent, drv)
	case hdl.Output, hdl.Wire:
		if sig.Driver == nil {
			c.fail("%s%s is not driven", sc.prefix, sig.Name)
		}
		id = c.expr(sc, sig.Driver)
	case hdl.InstOut:
		kid := sc.kids[sig.Inst]
		if kid == nil {
			c.fail("%s%s: unknown instance", sc.prefix, sig.Name)
		}
		p := kid.mod.Port(sig.Port)
		if p == nil || p.Kind != hdl.Output {
			c.fail("%s%s: module %s has no output %s", sc.prefix, sig.Name, kid.mod.Name, sig.Port)
		}
		id = c.signal(kid, p)
	default:
		c.fail("%s%s: unexpected %s", sc.prefix, sig.Name, sig.Kind)
	}
	if c.width(id) != sig.Type.Width {
		c.fail("%s%s: driver is %d bits, signal is %s", sc.prefix, sig.Name, c.width(id), sig.Type)
	}
	sc.sig[sig] = id
	return id
}

func (c *compiler) constant(t hdl.Type, v *big.Int) int32 {
	key := fmt.Sprintf("%d:%x", t.Width, v)
	if id, ok := c.consts[key]; ok {
		return id
	}
	id := c.newSlot(t.Width)
	bigToWords(c.s.words(id), v, t.Width)
	c.isConst[id] = true
	c.consts[key] = id
	return id
}

// expr returns the slot holding x in scope sc, building its node.
func (c *compiler) expr(sc *scope, x *hdl.Expr) int32 {
	if id, ok := sc.expr[x]; ok {
		return id
	}
	prev := c.cur
	c.cur = sc
	defer func() { c.cur = prev }()
	var id int32
	switch x.Op {
	case hdl.OpSignal:
		id = c.signal(sc, x.Sig)
	case hdl.OpConst:
		id = c.constant(x.Type, x.Const)
	case hdl.OpAsSInt, hdl.OpAsUInt:
		id = c.expr(sc, x.Args[0])
	case hdl.OpExt:
		a := c.expr(sc, x.Args[0])
		if c.width(a) == x.Type.Width {
			id = a
			break
		}
		op := nCopy
		if x.Args[0].Type.Signed {
			op = nSext
		}
		id = c.node(op, x.Type.Width, a)
	default:
		id = c.operator(sc, x)
	}
	if c.width(id) != x.Type.Width {
		c.fail("%s: %s node at %s is %d bits, its type is %s", c.where(sc), x.Op, x.Pos, c.width(id), x.Type)
	}
	sc.expr[x] = id
	return id
}

// simpleOps are the operators whose operands all have the result's
// width (hdl normalises them so), mapped to their narrow opcodes.
var simpleOps = map[hdl.Op]opcode{
	hdl.OpNot: nNot, hdl.OpNeg: nNeg, hdl.OpAdd: nAdd, hdl.OpSub: nSub, hdl.OpMul: nMul,
	hdl.OpAnd: nAnd, hdl.OpOr: nOr, hdl.OpXor: nXor,
}

var reduceOps = map[hdl.Op]opcode{hdl.OpRedAnd: nRedAnd, hdl.OpRedOr: nRedOr, hdl.OpRedXor: nRedXor}

func (c *compiler) operator(sc *scope, x *hdl.Expr) int32 {
	w := x.Type.Width
	// Before the operands are built: folding an Ext or a truncation in
	// means the extension or the full-width operator is never built.
	if id, ok := c.fused(sc, x, w); ok {
		return id
	}
	if len(x.Args) == 1 && (x.Op == hdl.OpTrunc || x.Op == hdl.OpSlice && x.Lo == 0) && lowBitsClosed[x.Args[0].Op] {
		inner := x.Args[0]
		// The low bits of these operators depend only on the low bits of
		// their operands: compute them at the narrow width at once.
		if id, ok := c.fused(sc, inner, w); ok {
			return id
		}
	}
	args := make([]int32, len(x.Args))
	for i, a := range x.Args {
		args[i] = c.expr(sc, a)
	}
	// The evaluators rely on hdl's normal form (operands pre-extended, no
	// implicit masking of inputs); a design that breaks it is refused here
	// instead of being simulated wrongly.
	shape := func(n int, same ...int) {
		if len(args) != n {
			c.fail("%s: %s node at %s has %d operands, want %d", c.where(sc), x.Op, x.Pos, len(args), n)
		}
		for _, i := range same {
			if c.width(args[i]) != w {
				c.fail("%s: %s node at %s: operand %d is %d bits, result %d", c.where(sc), x.Op, x.Pos, i, c.width(args[i]), w)
			}
		}
	}
	signed := len(x.Args) > 0 && x.Args[0].Type.Signed
	if op, ok := simpleOps[x.Op]; ok {
		if op == nNot || op == nNeg {
			shape(1, 0)
		} else {
			shape(2, 0, 1)
		}
		return c.node(op, w, args...)
	}
	switch x.Op {
	case hdl.OpRedAnd, hdl.OpRedOr, hdl.OpRedXor:
		shape(1)
		return c.node(reduceOps[x.Op], w, args[0])
	case hdl.OpShlConst:
		shape(1, 0)
		if x.Amount < 0 || x.Amount >= w {
			c.fail("%s: shift by %d of %d bits at %s", c.where(sc), x.Amount, w, x.Pos)
		}
		return c.nodeK(nShlC, w, int32(x.Amount), 0, args[0])
	case hdl.OpShl:
		shape(2, 0)
		return c.node(nShl, w, args[0], args[1])
	case hdl.OpShr:
		shape(2, 0)
		if signed {
			return c.node(nSra, w, args[0], args[1])
		}
		return c.node(nShr, w, args[0], args[1])
	case hdl.OpEq, hdl.OpNe, hdl.OpLt, hdl.OpLe, hdl.OpGt, hdl.OpGe:
		shape(2)
		a, b := args[0], args[1]
		if c.width(a) != c.width(b) {
			c.fail("%s: %s node at %s compares %d and %d bits", c.where(sc), x.Op, x.Pos, c.width(a), c.width(b))
		}
		var op opcode
		switch x.Op {
		case hdl.OpEq:
			op = nEq
		case hdl.OpNe:
			op = nNe
		case hdl.OpLt, hdl.OpGt:
			op = nLtU
		default:
			op = nLeU
		}
		if x.Op == hdl.OpGt || x.Op == hdl.OpGe {
			a, b = b, a
		}
		if signed && (op == nLtU || op == nLeU) {
			op += nLtS - nLtU
		}
		return c.node(op, w, a, b)
	case hdl.OpMux:
		shape(3, 1, 2)
		if c.width(args[0]) != 1 {
			c.fail("%s: mux select at %s is %d bits", c.where(sc), x.Pos, c.width(args[0]))
		}
		return c.node(nMux, w, args...)
	case hdl.OpCat:
		first := int32(len(c.s.cat))
		total := 0
		for _, a := range args {
			c.s.cat = append(c.s.cat, catArg{off: c.off(a), w: int32(c.width(a))})
			total += c.width(a)
		}
		if total != w || len(args) == 0 {
			c.fail("%s: cat at %s of %d bits into %d", c.where(sc), x.Pos, total, w)
		}
		return c.nodeK(nCat, w, first, int32(len(args)), args...)
	case hdl.OpSlice, hdl.OpTrunc:
		shape(1)
		lo := 0
		if x.Op == hdl.OpSlice {
			lo = x.Lo
		}
		if lo < 0 || lo+w > c.width(args[0]) {
			c.fail("%s: slice [%d+:%d] of %d bits at %s", c.where(sc), lo, w, c.width(args[0]), x.Pos)
		}
		return c.nodeK(nSlice, w, int32(lo), 0, args[0])
	}
	c.fail("%s: unsupported operator %s at %s", c.where(sc), x.Op, x.Pos)
	return 0
}

// lowBitsClosed are the operators whose result's low n bits depend only
// on the low n bits of their operands, so a truncation can be folded in.
var lowBitsClosed = map[hdl.Op]bool{
	hdl.OpAdd: true, hdl.OpSub: true, hdl.OpMul: true, hdl.OpAnd: true, hdl.OpOr: true, hdl.OpXor: true,
	hdl.OpNot: true, hdl.OpNeg: true,
}

// fusedOps are the narrow operators that read their operands through the
// sign-extension shifts, mapped to their opcodes (ordered compares are
// turned into their unsigned or signed form by the caller).
var fusedOps = map[hdl.Op]opcode{
	hdl.OpAdd: nAdd, hdl.OpSub: nSub, hdl.OpMul: nMul, hdl.OpAnd: nAnd, hdl.OpOr: nOr, hdl.OpXor: nXor,
	hdl.OpNot: nNot, hdl.OpNeg: nNeg, hdl.OpEq: nEq, hdl.OpNe: nNe,
	hdl.OpLt: nLtU, hdl.OpGt: nLtU, hdl.OpLe: nLeU, hdl.OpGe: nLeU,
}

// fused builds x as one narrow node of width w that reads through any
// Ext of its operands (and, when w is below x's width, truncates): an
// extension or truncation then costs no node, no level and no event of
// its own. It declines (false) when anything is wider than a word.
func (c *compiler) fused(sc *scope, x *hdl.Expr, w int) (int32, bool) {
	op, ok := fusedOps[x.Op]
	if !ok || w > 64 || x.Type.Width > 64 {
		return 0, false
	}
	for _, a := range x.Args {
		if a.Type.Width > 64 {
			return 0, false
		}
	}
	signed := x.Args[0].Type.Signed
	srcs := make([]int32, len(x.Args))
	shifts := make([]uint8, len(x.Args))
	for i, a := range x.Args {
		if lowBitsClosed[x.Op] {
			// Only the low w bits of the operands matter: read through
			// reinterpretations, through extensions of values at least w
			// bits wide (they change no bit that matters), and through
			// narrower extensions of one kind, whatever the operator's
			// signedness (Trunc(x + AsUInt(Ext(signed y)), 32) adds y
			// sign-extended).
			a = peelAs(a)
			ext, sext := false, false
			for a.Op == hdl.OpExt {
				src := a.Args[0]
				if src.Type.Width < w {
					if ext && src.Type.Signed != sext {
						break
					}
					ext, sext = true, src.Type.Signed
				}
				a = peelAs(src)
			}
			srcs[i] = c.expr(sc, a)
			if sext {
				shifts[i] = uint8(64 - c.width(srcs[i]))
			}
			continue
		}
		// An Ext keeps its operand's signedness, which hdl makes the
		// operator's: a signed operand is sign-extended from its own
		// width, an unsigned one is already zero-extended as stored.
		for a.Op == hdl.OpExt {
			a = a.Args[0]
		}
		srcs[i] = c.expr(sc, a)
		if signed {
			shifts[i] = uint8(64 - c.width(srcs[i]))
		}
	}
	if x.Op == hdl.OpGt || x.Op == hdl.OpGe {
		srcs[0], srcs[1] = srcs[1], srcs[0]
		shifts[0], shifts[1] = shifts[1], shifts[0]
	}
	if signed && (op == nLtU || op == nLeU) {
		op += nLtS - nLtU
	}
	var sb uint8
	if len(shifts) > 1 {
		sb = shifts[1]
	}
	return c.nodeX(op, w, 0, 0, shifts[0], sb, srcs...), true
}

// peelAs strips reinterpretations, which change no bit.
func peelAs(a *hdl.Expr) *hdl.Expr {
	for a.Op == hdl.OpAsSInt || a.Op == hdl.OpAsUInt {
		a = a.Args[0]
	}
	return a
}

// node appends an operator node over the given source slots and returns
// its result slot. The narrow opcode is turned into the wide one when the
// result or any operand does not fit a word.
func (c *compiler) node(op opcode, w int, srcs ...int32) int32 {
	return c.nodeK(op, w, 0, 0, srcs...)
}

// nodeK is node with the constant fields k and k2 (slice low bit, shift
// amount, cat argument range).
func (c *compiler) nodeK(op opcode, w int, k, k2 int32, srcs ...int32) int32 {
	return c.nodeX(op, w, k, k2, 0, 0, srcs...)
}

// nodeX is nodeK with operand sign-extension shifts (see node.sa).
func (c *compiler) nodeX(op opcode, w int, k, k2 int32, sa, sb uint8, srcs ...int32) int32 {
	wide := w > 64
	for _, sid := range srcs {
		if c.width(sid) > 64 {
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
		if id, ok := c.cse[key]; ok {
			return id
		}
	}
	id := c.newSlot(w)
	if op != nCat && op != wCat {
		c.cse[key] = id
	}
	n := node{op: op, w: int32(w), dst: c.off(id), slot: id, a: -1, b: -1, c: -1, k: k, k2: k2, sa: sa, sb: sb}
	if op != nCat && op != wCat {
		ptr := []*int32{&n.a, &n.b, &n.c}
		wid := []*int32{&n.aw, &n.bw, nil}
		for i, sid := range srcs {
			*ptr[i] = c.off(sid)
			if wid[i] != nil {
				*wid[i] = int32(c.width(sid))
			}
		}
	}
	folded := len(srcs) > 0
	for _, sid := range srcs {
		folded = folded && c.isConst[sid]
	}
	if folded {
		// Operands that never change: compute once, keep no node.
		c.s.eval(&n)
		c.isConst[id] = true
		return id
	}
	c.s.producer[id] = int32(len(c.s.nodes))
	c.s.nodes = append(c.s.nodes, n)
	c.nodeSrc = append(c.nodeSrc, srcs)
	return id
}

// link levelizes the nodes, renumbers them in level order and builds the
// fan-out lists. Nodes are created after their operands, so creation order
// is already topological; after renumbering, every node's fan-out has a
// higher index, which is what lets settle drain a single dirty bitmap in
// one forward pass.
func (c *compiler) link() {
	s := c.s
	c.orderSinks()
	level := make([]int32, len(s.nodes))
	for i, srcs := range c.nodeSrc {
		l := int32(0)
		for _, sid := range srcs {
			if p := s.producer[sid]; p >= 0 && level[p] > l {
				l = level[p]
			}
		}
		level[i] = l + 1
		s.levels = max(s.levels, int(l+1))
	}
	var order []int32
	if c.trees {
		order = c.treeOrder()
	} else {
		order = c.levelOrder(level)
	}
	nodes := make([]node, len(order))
	srcs := make([][]int32, len(order))
	for ni, old := range order {
		nodes[ni] = s.nodes[old]
		srcs[ni] = c.nodeSrc[old]
		s.producer[nodes[ni].slot] = int32(ni)
	}
	s.nodes, c.nodeSrc = nodes, srcs
	// Each tree is contiguous and ends with its root.
	s.treeFirst = make([]int32, len(s.nodes))
	first := int32(0)
	for i := range s.nodes {
		s.treeFirst[i] = first
		if !c.internal[order[i]] {
			first = int32(i) + 1
		}
	}
	inner := make([]bool, len(s.nodes))
	for ni, old := range order {
		inner[ni] = c.internal[old]
	}
	c.internal = inner
	s.internal = inner

	// Fan-out in CSR form, nodes and sinks apart; each list is sorted, so
	// its last entry bounds the dirty range.
	nodeFan := make([][]int32, len(s.slots))
	sinkFan := make([][]int32, len(s.slots))
	for i, srcs := range c.nodeSrc {
		for j, sid := range srcs {
			if !seenBefore(srcs, j) && !c.isConst[sid] {
				nodeFan[sid] = append(nodeFan[sid], int32(i))
			}
		}
	}
	for i, srcs := range c.sinkSrc {
		for j, sid := range srcs {
			if !seenBefore(srcs, j) && !c.isConst[sid] {
				sinkFan[sid] = append(sinkFan[sid], int32(i))
			}
		}
	}
	s.fan = make([]fanRange, len(s.slots))
	for id := range s.slots {
		r := &s.fan[id]
		r.node = int32(len(s.fanout))
		s.fanout = append(s.fanout, nodeFan[id]...)
		r.sink = int32(len(s.fanout))
		s.fanout = append(s.fanout, sinkFan[id]...)
		r.end = int32(len(s.fanout))
	}

	c.relayout()

	// One array holds both bitmaps, so a fan-out is a list of (word,
	// bits) marks into it: one OR per distinct word.
	nd := (len(s.nodes) + 63) / 64
	nsd := (len(s.sinks) + 63) / 64
	s.bits = make([]uint64, nd+nsd)
	s.dirty, s.sdirty = s.bits[:nd:nd], s.bits[nd:]
	// Marks in the order they are used: nodes, then sinks, then the rest.
	s.markOf = make([]markRange, len(s.slots))
	done := make([]bool, len(s.slots))
	add := func(id int32) {
		if id < 0 || done[id] {
			return
		}
		done[id] = true
		r := s.fan[id]
		lo := int32(len(s.marks))
		c.addMarks(s.fanout[r.node:r.sink], 0)
		c.addMarks(s.fanout[r.sink:r.end], int32(nd))
		s.markOf[id] = markRange{lo, int32(len(s.marks))}
	}
	for i := range s.nodes {
		add(s.nodes[i].slot)
	}
	for i := range s.sinks {
		add(s.sinks[i].slot)
	}
	for id := range s.slots {
		add(int32(id))
	}
	s.hot = make([]hnode, len(s.nodes))
	for i := range s.nodes {
		s.nodes[i].mk = s.markOf[s.nodes[i].slot]
		s.hot[i] = hotOf(&s.nodes[i])
		s.hot[i].fw, s.hot[i].fm = s.fanOf(s.nodes[i].mk)
		r := s.fan[s.nodes[i].slot]
		for _, t := range s.fanout[r.node:r.sink] {
			if t>>6 == int32(i)>>6 {
				s.hot[i].w |= selfFan
			}
		}
	}
	s.hsinks = make([]hsink, len(s.sinks))
	for i := range s.sinks {
		k := &s.sinks[i]
		if k.slot >= 0 {
			k.mk = s.markOf[k.slot]
		}
		h := hsink{fast: k.kind == sinkReg && k.nw == 1 && !k.staged, off: k.off, next: k.next, en: k.en}
		h.fw, h.fm = s.fanOf(k.mk)
		if h.next < 0 {
			h.next = h.off
		}
		if h.en < 0 {
			h.en = s.slots[c.one].off
		}

		s.hsinks[i] = h
	}

	// Everything is evaluated once at the start: all nodes dirty, all
	// sinks pending.
	for i := range s.nodes {
		s.markNode(int32(i))
	}
	for i := range s.sinks {
		s.markSink(int32(i))
	}
}

// addMarks appends the marks of a sorted target list into the bitmap at
// offset base of Sim.bits.
func (c *compiler) addMarks(targets []int32, base int32) {
	s := c.s
	first := len(s.marks)
	for _, t := range targets {
		w := base + t>>6
		if n := len(s.marks); n > first && s.marks[n-1].w == w {
			s.marks[n-1].m |= 1 << uint(t&63)
		} else {
			s.marks = append(s.marks, mark{w: w, m: 1 << uint(t&63)})
		}
	}
}

// relayout moves every value to its place in evaluation order: first the
// slots no node computes (rst, inputs, registers, read data, constants) in
// creation order, then the node results in node (level) order, so a
// settle writes results and reads its fan-out lists front to back.
func (c *compiler) relayout() {
	s := c.s
	newOff := make([]int32, len(s.v)) // by the old offset of a slot's first word
	for i := range newOff {
		newOff[i] = -1
	}
	nv := make([]uint64, 0, len(s.v))
	place := func(id int32) {
		sl := s.slots[id]
		newOff[sl.off] = int32(len(nv))
		nv = append(nv, s.v[sl.off:int(sl.off)+nwords(int(sl.w))]...)
	}
	// Instance by instance, its registers and read data, then the results
	// of its nodes in node order: what an edge and a settle of one
	// instance touch shares cache lines. Inputs, constants and anything
	// unowned go first.
	byScope := make([][]int32, len(c.scopes))
	for id := range s.slots {
		sc := c.slotScope[id]
		if s.producer[id] < 0 && (sc < 0 || c.isConst[id]) {
			place(int32(id))
		} else if s.producer[id] < 0 {
			byScope[sc] = append(byScope[sc], int32(id))
		}
	}
	var unowned []int32
	for i := range s.nodes {
		id := s.nodes[i].slot
		if sc := c.slotScope[id]; sc >= 0 {
			byScope[sc] = append(byScope[sc], id)
		} else {
			unowned = append(unowned, id)
		}
	}
	for _, id := range unowned {
		place(id)
	}
	for _, ids := range byScope {
		for _, id := range ids {
			place(id)
		}
	}
	m := func(o *int32) {
		if *o >= 0 {
			if newOff[*o] < 0 {
				c.fail("internal: offset %d is no slot's", *o)
			}
			*o = newOff[*o]
		}
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		m(&n.dst)
		m(&n.a)
		m(&n.b)
		m(&n.c)
	}
	for i := range s.cat {
		m(&s.cat[i].off)
	}
	for i := range s.sinks {
		k := &s.sinks[i]
		if k.kind != sinkWrite {
			m(&k.off)
		}
		m(&k.next)
		m(&k.en)
		if k.kind == sinkRead {
			m(&k.addr)
		}
	}
	for _, mem := range s.mems {
		for i := range mem.writes {
			p := &mem.writes[i]
			m(&p.addr)
			m(&p.data)
			m(&p.en)
			m(&p.mask)
		}
	}
	for id := range s.slots {
		m(&s.slots[id].off)
	}
	s.v = nv
}

// seenBefore reports whether list[j] already occurred in list[:j]. Operand
// lists are short except for wide Cats, for which a linear scan is cheap
// enough: a Cat of 4096 one-bit values costs 8M comparisons once.
func seenBefore(list []int32, j int) bool {
	for _, x := range list[:j] {
		if x == list[j] {
			return true
		}
	}
	return false
}

// orderSinks numbers the sinks so that an edge can update each one in
// place, in index order, and still let every sink see the old state: a
// sink that reads a register or a read port's data directly (next,
// enable, address, write data or mask) comes before it, and the read
// ports of a memory come before its writes. Sinks on a cycle of such
// reads (two registers swapping values, say) are marked staged: they
// compute in order but commit after all others. Among the sinks free to
// go, creation order wins, which keeps an instance's registers together.
func (c *compiler) orderSinks() {
	s := c.s
	n := len(s.sinks)
	bySlot := map[int32]int32{} // state slot -> the sink that updates it
	for i, k := range s.sinks {
		if k.kind != sinkWrite {
			bySlot[k.slot] = int32(i)
		}
	}
	// before[a] lists the sinks that must come after a.
	after := make([][]int32, n)
	for a, srcs := range c.sinkSrc {
		for _, sid := range srcs {
			if b, ok := bySlot[sid]; ok && b != int32(a) {
				after[a] = append(after[a], b)
			}
		}
	}
	for _, m := range s.mems {
		if m.group >= 0 {
			for _, r := range m.reads {
				after[r] = append(after[r], m.group)
			}
		}
	}
	comp, ncomp := sccs(after)
	size := make([]int32, ncomp)
	for _, cp := range comp {
		size[cp]++
	}
	// Kahn's algorithm over the components, smallest creation index first.
	first := make([]int32, ncomp)
	for i := range first {
		first[i] = int32(n)
	}
	members := make([][]int32, ncomp)
	for i := range n {
		cp := comp[i]
		first[cp] = min(first[cp], int32(i))
		members[cp] = append(members[cp], int32(i))
	}
	// Within a cycle every register and read port stages its value, but a
	// memory write lands at once: the cycle's writes come after its
	// reads, which must see the old words.
	for _, ms := range members {
		if len(ms) > 1 {
			sort.SliceStable(ms, func(x, y int) bool {
				return s.sinks[ms[x]].kind != sinkWrite && s.sinks[ms[y]].kind == sinkWrite
			})
		}
	}
	indeg := make([]int32, ncomp)
	succ := make([][]int32, ncomp)
	for a := range after {
		for _, b := range after[a] {
			if ca, cb := comp[a], comp[b]; ca != cb {
				succ[ca] = append(succ[ca], cb)
				indeg[cb]++
			}
		}
	}
	h := &minHeap{key: first}
	for cp := range ncomp {
		if indeg[cp] == 0 {
			h.push(int32(cp))
		}
	}
	order := make([]int32, 0, n)
	for h.len() > 0 {
		cp := h.pop()
		order = append(order, members[cp]...)
		for _, nx := range succ[cp] {
			if indeg[nx]--; indeg[nx] == 0 {
				h.push(nx)
			}
		}
	}
	if len(order) != n {
		c.fail("internal: sink order has %d of %d sinks", len(order), n)
	}
	newIdx := make([]int32, n)
	sinks := make([]sink, n)
	srcs := make([][]int32, n)
	for ni, old := range order {
		newIdx[old] = int32(ni)
		sinks[ni] = s.sinks[old]
		sinks[ni].staged = size[comp[old]] > 1
		srcs[ni] = c.sinkSrc[old]
	}
	s.sinks, c.sinkSrc = sinks, srcs
	for _, m := range s.mems {
		for i, r := range m.reads {
			m.reads[i] = newIdx[r]
		}
		if m.group >= 0 {
			m.group = newIdx[m.group]
		}
	}
}

// sccs numbers the strongly connected components of the graph (Tarjan,
// iterative: register chains can be long).
func sccs(succ [][]int32) (comp []int32, n int32) {
	N := len(succ)
	index := make([]int32, N)
	low := make([]int32, N)
	on := make([]bool, N)
	comp = make([]int32, N)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	var next int32
	type frame struct{ v, e int32 }
	for root := range N {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{int32(root), 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		on[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if int(f.e) < len(succ[v]) {
				w := succ[v][f.e]
				f.e++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					call = append(call, frame{w, 0})
				} else if on[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[w] = false
					comp[w] = n
					if w == v {
						break
					}
				}
				n++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
		}
	}
	return comp, n
}

// minHeap is a heap of ids ordered by key[id].
type minHeap struct {
	key []int32
	a   []int32
}

func (h *minHeap) len() int { return len(h.a) }

func (h *minHeap) push(x int32) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.key[h.a[p]] <= h.key[h.a[i]] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *minHeap) pop() int32 {
	top := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.a) && h.key[h.a[l]] < h.key[h.a[m]] {
			m = l
		}
		if r < len(h.a) && h.key[h.a[r]] < h.key[h.a[m]] {
			m = r
		}
		if m == i {
			return top
		}
		h.a[m], h.a[i] = h.a[i], h.a[m]
		i = m
	}
}

// treeOrder numbers the nodes for evaluation: a topological order in
// which every tree (a root and the internal nodes only it reads, directly
// or through other internal nodes) is contiguous, in post-order, ending
// with its root.
// Roots keep creation order, which is topological (a node is created
// after its operands) and keeps each instance's logic together.
func (c *compiler) treeOrder() []int32 {
	s := c.s
	n := len(s.nodes)
	readers := make([][]int32, n)
	bySink := make([]bool, n)
	for i, srcs := range c.nodeSrc {
		for j, sid := range srcs {
			if p := s.producer[sid]; p >= 0 && !seenBefore(srcs, j) {
				readers[p] = append(readers[p], int32(i))
			}
		}
	}
	for _, srcs := range c.sinkSrc {
		for _, sid := range srcs {
			if p := s.producer[sid]; p >= 0 {
				bySink[p] = true
			}
		}
	}
	// A node joins the tree of its readers when they all belong to one
	// tree (one reader, or several inside the same tree): readers come
	// later in creation order, so walk backwards.
	root := make([]int32, n)
	c.internal = make([]bool, n)
	for i := n - 1; i >= 0; i-- {
		root[i] = int32(i)
		rs := readers[i]
		if len(rs) == 0 || bySink[i] || s.nodes[i].op >= wAdd {
			continue
		}
		r := root[rs[0]]
		ok := true
		for _, x := range rs {
			ok = ok && root[x] == r && s.nodes[x].op < wAdd
		}
		if ok {
			root[i], c.internal[i] = r, true
		}
	}
	order := make([]int32, 0, n)
	done := make([]bool, n)
	var emit func(i int32)
	emit = func(i int32) {
		done[i] = true
		for _, sid := range c.nodeSrc[i] {
			if p := s.producer[sid]; p >= 0 && c.internal[p] && !done[p] {
				emit(p)
			}
		}
		order = append(order, i)
	}
	for i := range s.nodes {
		if !c.internal[i] {
			emit(int32(i))
		}
	}
	if len(order) != n {
		c.fail("internal: tree order has %d of %d nodes", len(order), n)
	}
	return order
}

// levelOrder numbers the nodes for the interpreter: by level (the length
// of the longest path from a register or input), and within a level by
// opcode, so that the interpreter's dispatch meets runs of the same
// operator (its indirect branch then predicts well; on the 16×16 NPU
// this is worth a quarter of the run time over creation order).
// Creation order breaks ties, which keeps instances together.
func (c *compiler) levelOrder(level []int32) []int32 {
	s := c.s
	order := make([]int32, len(s.nodes))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := order[x], order[y]
		if level[a] != level[b] {
			return level[a] < level[b]
		}
		return s.nodes[a].op < s.nodes[b].op
	})
	c.internal = make([]bool, len(s.nodes))
	return order
}
