package sim

// Building a Sim from a design: the builder's state, slot allocation
// and the order of the steps.

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
)

// builder flattens a design into a Sim (build) and keeps what it needs
// only while doing so.
type builder struct {
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
	// mode selects how the nodes are ordered and grouped: levelOrder for
	// the per-register interpreter, treeOrder for its compiled code,
	// supernodes (partition) otherwise.
	mode buildMode
	// origin is, per node (in creation order), the first expression that
	// built it: instances of one module share their expressions, which
	// is how the partition recognises the same logic in sibling
	// instances.
	origin []*hdl.Expr
	// internal marks the nodes whose only reader is one narrow node (no
	// sink, no other node): compiled code evaluates them inside the tree
	// of their reader. All false in level order.
	internal []bool
}

func (b *builder) newSlot(w int) int32 {
	s := b.s
	id := int32(len(s.slots))
	sc := int32(-1)
	if b.cur != nil {
		sc = b.cur.idx
	}
	b.slotScope = append(b.slotScope, sc)
	s.slots = append(s.slots, slot{off: int32(len(s.v)), w: int32(w)})
	s.producer = append(s.producer, -1)
	s.v = append(s.v, make([]uint64, nwords(w))...)
	b.isConst = append(b.isConst, false)
	return id
}

func (b *builder) off(id int32) int32 { return b.s.slots[id].off }
func (b *builder) width(id int32) int { return int(b.s.slots[id].w) }

// buildMode is how build orders and groups the netlist.
type buildMode uint8

const (
	// modeParts cuts the nodes into supernodes and the sinks into groups
	// (partition, sinkGroups): the default simulator, interpreted or
	// compiled.
	modeParts buildMode = iota
	// modeLevels is the per-register (event) interpreter: nodes by level
	// and operator (levelOrder).
	modeLevels
	// modeTrees is the per-register simulator's compiled code: nodes in
	// tree order (treeOrder).
	modeTrees
)

// build flattens d into s: nodes, sinks and their fan-out, in evaluation
// order for mode.
func build(s *Sim, d *hdl.Design, mode buildMode) (err error) {
	b := &builder{s: s, consts: map[string]int32{}, mode: mode, cse: map[nodeKey]int32{}}
	// Constant folding evaluates nodes while building.
	s.tmp = make([]uint64, nwords(hdl.MaxWidth))
	s.tmp2 = make([]uint64, nwords(hdl.MaxWidth))
	defer func() {
		// Resolution recurses through the whole netlist; an inconsistency in
		// an elaborated design is reported, not crashed on.
		if r := recover(); r != nil {
			if e, ok := r.(buildError); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	s.rstSlot = b.newSlot(1)
	b.one = b.constant(hdl.Bool, big.NewInt(1))
	top := b.newScope(d.Top, nil, nil, "")
	// State first, so registers and read data sit together in memory.
	for _, sc := range b.scopes {
		b.cur = sc
		for _, sig := range sc.mod.Signals {
			switch {
			case sig.Kind == hdl.Input && sc.parent == nil:
				id := b.newSlot(sig.Type.Width)
				sc.sig[sig] = id
				s.inputs = append(s.inputs, Port{Name: sig.Name, Type: sig.Type})
			case sig.Kind == hdl.Reg || sig.Kind == hdl.MemRead:
				sc.sig[sig] = b.newSlot(sig.Type.Width)
			}
		}
	}
	b.cur = nil
	for _, sig := range top.mod.Ports {
		if sig.Kind == hdl.Output {
			s.outputs = append(s.outputs, Port{Name: sig.Name, Type: sig.Type})
		}
	}
	for _, sc := range b.scopes {
		b.scopeBody(sc)
	}
	b.link()
	s.isConst = b.isConst
	return nil
}

type buildError struct{ msg string }

func (e buildError) Error() string { return "sim: " + e.msg }

func (b *builder) fail(format string, args ...any) {
	panic(buildError{fmt.Sprintf(format, args...)})
}

func (b *builder) addSink(k sink, srcs []int32) int32 {
	b.s.sinks = append(b.s.sinks, k)
	b.sinkSrc = append(b.sinkSrc, srcs)
	return int32(len(b.s.sinks) - 1)
}
