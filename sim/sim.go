package sim

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"
	"unsafe"

	"github.com/hwgen/hwgen/hdl"
)

// Sim simulates one elaborated design. It is not safe for concurrent use.
type Sim struct {
	top       string
	v         []uint64 // every slot's words
	slots     []slot
	producer  []int32 // node computing each slot, -1 for state, inputs, constants
	nodes     []node
	hot       []hnode // the evaluation part of nodes, what settle walks
	levels    int
	cat       []catArg
	dirty     []uint64   // bitmap over nodes, which are numbered in level order
	nodesDue  bool       // a node may be dirty (else settle has nothing to do)
	fan       []fanRange // per slot
	marks     []mark
	markOf    []markRange // per slot
	bits      []uint64    // dirty, then sdirty
	fanout    []int32
	sinks     []sink
	hsinks    []hsink  // what the edge reads of each sink
	inits     []uint64 // reset values of the registers
	isConst   []bool   // per slot: a constant (written as a literal by generated code)
	sdirty    []uint64 // bitmap over sinks to visit at the next edge
	sinksDue  bool     // a sink may be pending (else an edge only counts)
	treeFirst []int32  // per node, the first node of its tree (see treeOrder)
	internal  []bool   // per node, whether it is internal to its tree
	// The partitioned simulator's supernodes and sink groups (nil in the
	// per-register one, whose dirty and sdirty are over nodes and sinks).
	parts     []part
	runs      []run
	groups    []group
	regs      []reg       // per sink, for commitRegs (one-word registers only)
	partOf    []int32     // per node, its supernode
	groupOf   []int32     // per sink, its group
	armOf     []markRange // per supernode, the groups it arms
	plug      *pluginCode
	cl        *compact // generated code's narrow storage (compact.go), nil without
	stageBuf  []uint64
	staged    []staged
	mems      []*memory
	memByPath map[string]int32
	sigs      []sigInfo
	byPath    map[string]int32
	scopes    []scopeInfo
	inputs    []Port
	outputs   []Port
	rstSlot   int32
	tmp, tmp2 []uint64
	zero      []uint64
	cycle     uint64
	evals     uint64
	sinkEvals uint64
	tr        *vcd
	ports     [256]portEntry // input's cache
}

// Port is a top-level port.
type Port struct {
	Name string
	Type hdl.Type
}

// Stats describes the compiled netlist and the work done so far.
type Stats struct {
	Nodes     int    // combinational operators after aliasing
	Slots     int    // distinct values
	Levels    int    // depth of the deepest combinational path
	Registers int    // registers (a named register of any width counts once per instance)
	ReadPorts int    // memory read ports
	Memories  int    // memories
	Signals   int    // named signals (peekable paths)
	Evals     uint64 // combinational node evaluations so far: every node of each supernode evaluated (per-register simulator: each node evaluated; compiled, the nodes of every tree)
	SinkEvals uint64 // register, read-port and write-port visits at edges so far: every sink of each group committed (per-register simulator: each sink visited)
	Cycles    uint64 // rising edges so far
}

// New compiles d for simulation. Everything starts at 0 with rst low.
//
// With HWGEN_SIM=compiled in the environment, New is NewWith(d,
// Options{Compiled: true}): every simulator of the program is compiled
// (see Options), which suits long runs of one design. HWGEN_SIM is a
// comma-separated list: HWGEN_SIM=event selects the per-register
// simulator (Options.Event), HWGEN_SIM=event,compiled its compiled form.
func New(d *hdl.Design) (*Sim, error) {
	return NewWith(d, Options{Compiled: envSim("compiled")})
}

func newSim(d *hdl.Design, mode buildMode) (*Sim, error) {
	if d == nil || d.Top == nil {
		return nil, errors.New("sim: nil design")
	}
	s := &Sim{top: d.Top.Name, memByPath: map[string]int32{}, byPath: map[string]int32{}}
	if err := build(s, d, mode); err != nil {
		return nil, err
	}
	if inf := d.Info[d.Top]; inf != nil && inf.UsesReset {
		s.inputs = append([]Port{{Name: "rst", Type: hdl.Bool}}, s.inputs...)
	}
	s.zero = make([]uint64, len(s.tmp))
	return s, nil
}

// Inputs lists the top-level inputs in declaration order, preceded by rst
// when the design has registers. clk is driven by Step and not listed.
func (s *Sim) Inputs() []Port { return append([]Port(nil), s.inputs...) }

// Outputs lists the top-level outputs in declaration order.
func (s *Sim) Outputs() []Port { return append([]Port(nil), s.outputs...) }

// Signals lists every named signal by path, in hierarchy order.
func (s *Sim) Signals() []Port {
	out := make([]Port, len(s.sigs))
	for i, g := range s.sigs {
		out[i] = Port{Name: g.path, Type: g.typ}
	}
	return out
}

// Memories lists the paths of all memories.
func (s *Sim) Memories() []string {
	out := make([]string, len(s.mems))
	for i, m := range s.mems {
		out[i] = m.path
	}
	return out
}

// input finds a pokeable port: a top-level input or rst. rst is accepted
// even when the design has no register, so a harness can reset any design.
func (s *Sim) input(op, port string) (int32, hdl.Type, error) {
	// A testbench pokes the same few ports every cycle, by the same
	// strings: a cache indexed by where the name's bytes lie finds them
	// without hashing the name (comparing equal pointers is immediate).
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(port)))) * 0x9e3779b97f4a7c15 >> 56
	for i := range uint64(4) { // a few neighbours, in case names collide
		if e := &s.ports[(h+i)%uint64(len(s.ports))]; e.name == port && port != "" {
			return e.slot, e.typ, nil
		}
	}
	id, t, err := s.lookupInput(op, port)
	if err == nil {
		// Replace an empty neighbour or, failing that, the first.
		e := &s.ports[h]
		for i := range uint64(4) {
			if c := &s.ports[(h+i)%uint64(len(s.ports))]; c.name == "" {
				e = c
				break
			}
		}
		*e = portEntry{name: port, slot: id, typ: t}
	}
	return id, t, err
}

// portEntry is a cached result of lookupInput.
type portEntry struct {
	name string
	slot int32
	typ  hdl.Type
}

// lookupInput is input without the cache.
func (s *Sim) lookupInput(op, port string) (int32, hdl.Type, error) {
	if port == "rst" {
		return s.rstSlot, hdl.Bool, nil
	}
	if i, ok := s.byPath[port]; ok && s.sigs[i].scope == 0 && s.sigs[i].kind == hdl.Input {
		return s.sigs[i].slot, s.sigs[i].typ, nil
	}
	names := make([]string, len(s.inputs))
	for i, p := range s.inputs {
		names[i] = p.Name
	}
	what := "no such input port"
	if port == "clk" {
		what = "clk is driven by Step"
	} else if _, ok := s.byPath[port]; ok {
		what = "not a top-level input"
	}
	return 0, hdl.Type{}, fmt.Errorf("sim: %s %q: %s (inputs of %s: %s)", op, port, what, s.top, strings.Join(names, ", "))
}

// Poke sets a top-level input (or rst). v is the port's bit pattern; for a
// signed port of at most 64 bits the 64-bit sign extension of a negative
// value is accepted too, so uint64(int64(x)) works. The change takes
// effect (combinationally) at the next Peek or Step.
func (s *Sim) Poke(port string, v uint64) error {
	id, t, err := s.input("Poke", port)
	if err != nil {
		return err
	}
	if w := t.Width; w < 64 && v>>uint(w) != 0 {
		neg := t.Signed && int64(v) < 0 && int64(v) >= -(int64(1)<<uint(w-1))
		if !neg {
			return fmt.Errorf("sim: Poke %q: value %#x is too wide for %s", port, v, t)
		}
		v &= mask(uint64(w))
	}
	d := s.tmp[:s.nw(id)]
	clear(d)
	d[0] = v
	s.set(id, d)
	return nil
}

// PokeBig sets a top-level input of any width. A negative v is written as
// its two's complement; v must lie in [-2^(w-1), 2^w).
func (s *Sim) PokeBig(port string, v *big.Int) error {
	id, t, err := s.input("PokeBig", port)
	if err != nil {
		return err
	}
	if !fitsBits(v, t.Width) {
		return fmt.Errorf("sim: PokeBig %q: value %s is too wide for %s", port, v, t)
	}
	d := s.tmp[:s.nw(id)]
	bigToWords(d, v, t.Width)
	s.set(id, d)
	return nil
}

// PokeWords sets a top-level input from its bit pattern in 64-bit words,
// least significant first (one word per 64 bits of the port's width): the
// allocation-free Poke for wide ports and long random runs.
func (s *Sim) PokeWords(port string, w []uint64) error {
	id, t, err := s.input("PokeWords", port)
	if err != nil {
		return err
	}
	n := s.nw(id)
	if len(w) != n {
		return fmt.Errorf("sim: PokeWords %q: %d words for %s, want %d", port, len(w), t, n)
	}
	if rem := t.Width % 64; rem != 0 && w[n-1]>>uint(rem) != 0 {
		return fmt.Errorf("sim: PokeWords %q: value is too wide for %s", port, t)
	}
	s.set(id, w)
	return nil
}

// fitsBits accepts anything that has a w-bit pattern without wrapping:
// unsigned values below 2^w and negative values down to -2^(w-1).
func fitsBits(v *big.Int, w int) bool {
	if v.Sign() >= 0 {
		return v.BitLen() <= w
	}
	lim := new(big.Int).Lsh(big.NewInt(1), uint(w-1))
	return v.Cmp(new(big.Int).Neg(lim)) >= 0
}

func (s *Sim) nw(id int32) int { return nwords(int(s.slots[id].w)) }

// words is slot id's value, for reading: a slice of the value array, or
// a copy of a compact slot's value.
func (s *Sim) words(id int32) []uint64 {
	off := s.slots[id].off
	if s.liveCompact(id) {
		return []uint64{s.cl.get(off)}
	}
	return s.v[off : int(off)+s.nw(id)]
}

// set writes a slot from outside the netlist and schedules its fan-out.
func (s *Sim) set(id int32, d []uint64) {
	if s.liveCompact(id) {
		off := s.slots[id].off
		if s.cl.get(off) != d[0] {
			s.cl.put(off, d[0])
			s.changed(id)
		}
		return
	}
	cur := s.words(id)
	if eqW(cur, d) {
		return
	}
	copy(cur, d)
	s.changed(id)
}

func (s *Sim) signal(op, path string) (*sigInfo, error) {
	if path == "rst" {
		return &sigInfo{name: "rst", path: "rst", slot: s.rstSlot, typ: hdl.Bool, kind: hdl.Input}, nil
	}
	i, ok := s.byPath[path]
	if !ok {
		return nil, fmt.Errorf("sim: %s %q: %s", op, path, s.notFound(path))
	}
	s.settle()
	return &s.sigs[i], nil
}

// notFound explains a bad path: which instance exists and what it holds.
func (s *Sim) notFound(path string) string {
	prefix, name := "", path
	if i := strings.LastIndex(path, "."); i >= 0 {
		prefix, name = path[:i+1], path[i+1:]
	}
	var near []string
	for _, g := range s.sigs {
		if strings.HasPrefix(g.path, prefix) && !strings.Contains(g.path[len(prefix):], ".") {
			near = append(near, g.path[len(prefix):])
		}
	}
	if len(near) == 0 {
		return fmt.Sprintf("no instance %q in %s", strings.TrimSuffix(prefix, "."), s.top)
	}
	sort.Strings(near)
	if len(near) > 20 {
		near = append(near[:20], "...")
	}
	scope := s.top
	if prefix != "" {
		scope = strings.TrimSuffix(prefix, ".")
	}
	return fmt.Sprintf("no signal %q in %s (has: %s)", name, scope, strings.Join(near, ", "))
}

// Peek returns the low 64 bits of any named signal (settling first).
func (s *Sim) Peek(path string) (uint64, error) {
	g, err := s.signal("Peek", path)
	if err != nil {
		return 0, err
	}
	return s.words(g.slot)[0], nil
}

// PeekBig returns the unsigned bit pattern of any named signal.
func (s *Sim) PeekBig(path string) (*big.Int, error) {
	g, err := s.signal("PeekBig", path)
	if err != nil {
		return nil, err
	}
	return wordsToBig(s.words(g.slot)), nil
}

// PeekSigned returns the value of a named signal read by its type:
// negative for an SInt with the top bit set.
func (s *Sim) PeekSigned(path string) (*big.Int, error) {
	g, err := s.signal("PeekSigned", path)
	if err != nil {
		return nil, err
	}
	return g.typ.Interpret(wordsToBig(s.words(g.slot))), nil
}

// Step runs n rising clock edges. Before each edge the design settles,
// so inputs poked before Step are sampled by its first edge; after each
// edge it settles again.
func (s *Sim) Step(n int) {
	for range n {
		if !s.nodesDue && !s.sinksDue && s.tr == nil {
			s.cycle++ // nothing is due: an edge would change nothing
			continue
		}
		s.settle()
		if s.tr != nil {
			s.tr.dump(s, 10*s.cycle+5, 0)
		}
		s.edge()
		s.settle()
		if s.tr != nil {
			s.tr.dump(s, 10*s.cycle, 1)
		}
	}
}

// Reset holds rst high for cycles edges, then drops it.
func (s *Sim) Reset(cycles int) {
	s.set(s.rstSlot, []uint64{1})
	s.Step(cycles)
	s.set(s.rstSlot, []uint64{0})
}

// Cycle returns the number of rising edges so far.
func (s *Sim) Cycle() uint64 { return s.cycle }

func (s *Sim) memory(op, path string, addr int) (*memory, error) {
	i, ok := s.memByPath[path]
	if !ok {
		names := s.Memories()
		if len(names) == 0 {
			names = []string{"none"}
		}
		return nil, fmt.Errorf("sim: %s %q: no such memory (memories: %s)", op, path, strings.Join(names, ", "))
	}
	m := s.mems[i]
	if addr < 0 || addr >= m.depth {
		return nil, fmt.Errorf("sim: %s %q: address %d outside 0..%d", op, path, addr, m.depth-1)
	}
	return m, nil
}

// MemRead returns the word at addr of a memory (backdoor, no clock).
func (s *Sim) MemRead(path string, addr int) (*big.Int, error) {
	m, err := s.memory("MemRead", path, addr)
	if err != nil {
		return nil, err
	}
	d := make([]uint64, m.nw)
	m.get(d, addr)
	return wordsToBig(d), nil
}

// MemWrite sets the word at addr of a memory at once (backdoor). Read
// ports are synchronous, so their data changes at the next edge, not now.
// A negative v is written as its two's complement.
func (s *Sim) MemWrite(path string, addr int, v *big.Int) error {
	m, err := s.memory("MemWrite", path, addr)
	if err != nil {
		return err
	}
	if !fitsBits(v, m.typ.Width) {
		return fmt.Errorf("sim: MemWrite %q: value %s is too wide for %s", path, v, m.typ)
	}
	d := make([]uint64, m.nw)
	bigToWords(d, v, m.typ.Width)
	m.put(addr, d)
	// Reads and writes of the next edge must run even if their inputs are
	// unchanged: the reads to see this word, the writes to overwrite it.
	for _, r := range m.reads {
		s.markSink(r)
	}
	if m.group >= 0 {
		s.markSink(m.group)
	}
	return nil
}

// Stats reports the netlist size and the evaluation counts so far.
func (s *Sim) Stats() Stats {
	st := Stats{Nodes: len(s.nodes), Slots: len(s.slots), Levels: s.levels, Memories: len(s.mems),
		Signals: len(s.sigs), Evals: s.evals, SinkEvals: s.sinkEvals, Cycles: s.cycle}
	for _, k := range s.sinks {
		switch k.kind {
		case sinkReg:
			st.Registers++
		case sinkRead:
			st.ReadPorts++
		}
	}
	return st
}

// RandomizeUnreset gives every register without a reset value
// (hdl.Module.RegNoReset) random bits, as a chip powers up, and returns
// how many it set. Rst never touches these registers, so a design whose
// outputs still match its golden model after this proves it never uses
// such a register before writing it. Call it before the first edge.
func (s *Sim) RandomizeUnreset(seed uint64) int {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	n := 0
	for i := range s.sinks {
		k := &s.sinks[i]
		if k.kind != sinkReg || k.init >= 0 {
			continue
		}
		w := make([]uint64, k.nw)
		for j := range w {
			w[j] = r.Uint64()
		}
		if top := uint64(s.slots[k.slot].w) % 64; top != 0 {
			w[len(w)-1] &= mask(top)
		}
		s.set(k.slot, w)
		n++
	}
	return n
}
