package taskmgr

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/isa"
)

// fieldSpec is one entry of the descriptor definition. The list below is
// the only place the descriptor is defined: offsets, the Go encoder and
// decoder, the hardware decoder, the engine ports and the documentation
// table are all derived from it.
type fieldSpec struct {
	name    string
	count   func(Config) int // repetitions named name0, name1, ...; nil: once
	plain   bool             // a count of 1 keeps the plain name (param, not param0)
	width   func(Config) int
	widthAt func(Config, int) int // width of repetition i, when it differs between repetitions
	engine  bool                  // the engine receives it on its dispatch port
	// modulo marks a sequence number (task IDs and the dependencies
	// naming them): Encode keeps its low width bits, as the hardware
	// counts and compares IDs modulo 2^id_bits, so a program may have
	// more tasks than the IDs can name.
	modulo bool
	doc    string
	get    func(d *isa.Descriptor, i int) uint64
	set    func(d *isa.Descriptor, i int, v uint64)
}

func fixed(w int) func(Config) int { return func(Config) int { return w } }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// paramWords is the number of 64-bit words of the param operand.
func paramWords(c Config) int { return (c.ParamBits + 63) / 64 }

// paramWidth is the width of param word i: 64, the last one the rest.
func paramWidth(c Config, i int) int { return min(64, c.ParamBits-64*i) }

// hasNet counts the network fields: present only with net_bits > 0.
func hasNet(c Config) int { return int(b2u(c.NetBits > 0)) }

// ndepsBits holds the numbers 0..max_deps.
func ndepsBits(c Config) int { return hdl.ClogWidth(c.MaxDeps + 1) }

var descriptorSpec = []fieldSpec{
	{name: "id", width: func(c Config) int { return c.IDBits }, engine: true, modulo: true,
		doc: "task ID; consecutive within a queue (mod 2^id_bits), checked by the hardware",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.ID }, set: func(d *isa.Descriptor, _ int, v uint64) { d.ID = v }},
	{name: "engine", width: fixed(isa.EngineBits),
		doc: "engine: 0 dma_in, 1 ne, 2 planar, 3 dma_out; 4..7 are malformed",
		get: func(d *isa.Descriptor, _ int) uint64 { return uint64(d.Engine) }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Engine = isa.Engine(v) }},
	{name: "op", width: fixed(isa.OpBits), engine: true,
		doc: "operation code of the engine (see the operation table); an unknown code is malformed",
		get: func(d *isa.Descriptor, _ int) uint64 { return uint64(d.Op) }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Op = isa.Op(v) }},
	{name: "flags", width: func(c Config) int { return c.FlagBits }, engine: true,
		doc: "debug flags, passed to the engine unchanged",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.Flags }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Flags = v }},
	{name: "hold", width: fixed(1),
		doc: "the task-switch flag, inverted: 1 keeps the issue arbiter on this queue after this task (its end is not a switch point), so no other queue's task issues before this queue's next one (unless this queue runs empty); 0 lets a higher-priority queue take over",
		get: func(d *isa.Descriptor, _ int) uint64 { return b2u(d.Hold) }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Hold = v == 1 }},
	{name: "partial", count: func(c Config) int { return int(b2u(c.Partial)) }, plain: true, width: fixed(1), engine: true,
		doc: "(Config.Partial only) dep0 is a partial dependency: the task is dispatched once dep0 has started, not finished, and the NPU holds each of its buffer reads until dep0's writes have passed that address",
		get: func(d *isa.Descriptor, _ int) uint64 { return b2u(d.Partial) }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Partial = v == 1 }},
	{name: "net", count: hasNet, plain: true, width: func(c Config) int { return c.NetBits }, engine: true,
		doc: "(net_bits > 0) the network the task belongs to: selects the base pointer of its memory-relative operands",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.Net }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Net = v }},
	{name: "src_mem", count: hasNet, plain: true, width: fixed(1), engine: true,
		doc: "(net_bits > 0) source kind: 1, src is an external line relative to the network's base pointer; 0, an absolute address",
		get: func(d *isa.Descriptor, _ int) uint64 { return b2u(d.SrcMem) }, set: func(d *isa.Descriptor, _ int, v uint64) { d.SrcMem = v == 1 }},
	{name: "dst_mem", count: hasNet, plain: true, width: fixed(1), engine: true,
		doc: "(net_bits > 0) destination kind: 1, dst is an external line relative to the network's base pointer; 0, an absolute address",
		get: func(d *isa.Descriptor, _ int) uint64 { return b2u(d.DstMem) }, set: func(d *isa.Descriptor, _ int, v uint64) { d.DstMem = v == 1 }},
	{name: "ndeps", width: ndepsBits,
		doc: "number of valid dependency fields, 0..max_deps; more is malformed",
		get: func(d *isa.Descriptor, _ int) uint64 { return uint64(len(d.Deps)) },
		set: func(d *isa.Descriptor, _ int, v uint64) { d.Deps = make([]uint64, v) }},
	{name: "dep", count: func(c Config) int { return c.MaxDeps }, width: func(c Config) int { return c.IDBits }, modulo: true,
		doc: "ID of a task this one waits for: one of the window-1 tasks of the same queue before it, else malformed; fields at or above ndeps are ignored",
		get: func(d *isa.Descriptor, i int) uint64 {
			if i < len(d.Deps) {
				return d.Deps[i]
			}
			return 0
		},
		set: func(d *isa.Descriptor, i int, v uint64) {
			if i < len(d.Deps) {
				d.Deps[i] = v
			}
		}},
	{name: "src", width: func(c Config) int { return c.AddrBits }, engine: true,
		doc: "source address",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.Src }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Src = v }},
	{name: "aux", width: func(c Config) int { return c.AddrBits }, engine: true,
		doc: "second source address (weights, second operand)",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.Aux }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Aux = v }},
	{name: "dst", width: func(c Config) int { return c.AddrBits }, engine: true,
		doc: "destination address",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.Dst }, set: func(d *isa.Descriptor, _ int, v uint64) { d.Dst = v }},
	{name: "d0", width: func(c Config) int { return c.DimBits }, engine: true,
		doc: "first size operand",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.D0 }, set: func(d *isa.Descriptor, _ int, v uint64) { d.D0 = v }},
	{name: "d1", width: func(c Config) int { return c.DimBits }, engine: true,
		doc: "second size operand",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.D1 }, set: func(d *isa.Descriptor, _ int, v uint64) { d.D1 = v }},
	{name: "d2", width: func(c Config) int { return c.DimBits }, engine: true,
		doc: "third size operand",
		get: func(d *isa.Descriptor, _ int) uint64 { return d.D2 }, set: func(d *isa.Descriptor, _ int, v uint64) { d.D2 = v }},
	{name: "param", count: paramWords, plain: true, widthAt: paramWidth, engine: true,
		doc: "packed operation parameters (the engine's parameter layout), 64 bits per word",
		get: func(d *isa.Descriptor, i int) uint64 {
			if i < len(d.Param) {
				return d.Param[i]
			}
			return 0
		},
		set: func(d *isa.Descriptor, i int, v uint64) {
			if v == 0 && i >= len(d.Param) {
				return
			}
			for len(d.Param) <= i {
				d.Param = append(d.Param, 0)
			}
			d.Param[i] = v
		}},
}

// Field is one field of a descriptor, bit Offset upwards.
type Field struct {
	Name   string
	Offset int
	Width  int
	Engine bool // appears on every engine's dispatch port as <engine>_<name>
	Doc    string
}

// Layout is the descriptor layout of one configuration.
type Layout struct {
	Config Config
	Fields []Field
	Width  int // descriptor width in bits: the width of cmd_desc
	rec    *record
	refs   []fieldRef
}

type fieldRef struct {
	spec *fieldSpec
	i    int
}

// NewLayout derives the descriptor layout of cfg.
func NewLayout(cfg Config) (*Layout, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Layout{Config: cfg, rec: newRecord()}
	for si := range descriptorSpec {
		s := &descriptorSpec[si]
		n := 1
		if s.count != nil {
			n = s.count(cfg)
		}
		for i := 0; i < n; i++ {
			name := s.name
			if s.count != nil && !(s.plain && n == 1) {
				name = fmt.Sprintf("%s%d", s.name, i)
			}
			var w int
			if s.widthAt != nil {
				w = s.widthAt(cfg, i)
			} else {
				w = s.width(cfg)
			}
			l.Fields = append(l.Fields, Field{Name: name, Offset: l.rec.width, Width: w, Engine: s.engine, Doc: s.doc})
			l.refs = append(l.refs, fieldRef{s, i})
			l.rec.add(name, w)
		}
	}
	l.Width = l.rec.width
	return l, nil
}

// DefaultLayout is the layout of DefaultConfig.
func DefaultLayout() *Layout {
	l, err := NewLayout(DefaultConfig())
	if err != nil {
		panic(err)
	}
	return l
}

// Field returns the field called name.
func (l *Layout) Field(name string) (Field, bool) {
	i, ok := l.rec.index[name]
	if !ok {
		return Field{}, false
	}
	return l.Fields[i], true
}

// Pack assembles descriptor bits from raw field values (missing fields are
// 0). It can build any bit pattern, malformed ones included; the compiler
// uses Encode.
func (l *Layout) Pack(vals map[string]uint64) (*big.Int, error) {
	bits := new(big.Int)
	for name, v := range vals {
		i, ok := l.rec.index[name]
		if !ok {
			return nil, fmt.Errorf("taskmgr: descriptor has no field %q", name)
		}
		f := l.Fields[i]
		if f.Width < 64 && v>>uint(f.Width) != 0 {
			return nil, fmt.Errorf("taskmgr: descriptor field %s = %d does not fit %d bits", name, v, f.Width)
		}
		bits.Or(bits, new(big.Int).Lsh(new(big.Int).SetUint64(v), uint(f.Offset)))
	}
	return bits, nil
}

// Unpack splits descriptor bits into raw field values.
func (l *Layout) Unpack(bits *big.Int) map[string]uint64 {
	out := make(map[string]uint64, len(l.Fields))
	for _, f := range l.Fields {
		v := new(big.Int).Rsh(bits, uint(f.Offset))
		out[f.Name] = new(big.Int).And(v, hdl.UInt(f.Width).Mask()).Uint64()
	}
	return out
}

// Encode is the compiler's encoder: it checks that d names a known engine
// and operation, has at most max_deps dependencies and that every value
// fits its field, and returns the descriptor bits. (Whether the ID and the
// dependencies suit the program is checked by the hardware.)
func (l *Layout) Encode(d isa.Descriptor) (*big.Int, error) {
	// The task manager's own check: an engine or op this configuration
	// lacks (the sparse engine and its DMA ops without Sparse) is refused
	// here as the hardware would flag it.
	if int(d.Engine) >= len(l.Config.Engines()) {
		return nil, fmt.Errorf("taskmgr: task %d: unknown engine %d", d.ID, d.Engine)
	}
	if d.Op >= 64 || d.Engine.OpMaskOf(l.Config.Sparse)>>d.Op&1 == 0 {
		return nil, fmt.Errorf("taskmgr: task %d: engine %s has no operation %d", d.ID, d.Engine, d.Op)
	}
	if len(d.Deps) > l.Config.MaxDeps {
		return nil, fmt.Errorf("taskmgr: task %d has %d dependencies, max_deps is %d", d.ID, len(d.Deps), l.Config.MaxDeps)
	}
	if d.Partial && (!l.Config.Partial || len(d.Deps) == 0) {
		return nil, fmt.Errorf("taskmgr: task %d: a partial dependency needs the partial flag (taskmgr partial = %v) and a dep0 (%d dependencies)", d.ID, l.Config.Partial, len(d.Deps))
	}
	if l.Config.NetBits == 0 && (d.Net != 0 || d.SrcMem || d.DstMem) {
		return nil, fmt.Errorf("taskmgr: task %d: network %d and memory-relative operands need network IDs (taskmgr net_bits = 0)", d.ID, d.Net)
	}
	vals := make(map[string]uint64, len(l.Fields))
	for i, f := range l.Fields {
		v := l.refs[i].spec.get(&d, l.refs[i].i)
		if l.refs[i].spec.modulo && f.Width < 64 {
			v &= 1<<uint(f.Width) - 1
		}
		vals[f.Name] = v
	}
	bits, err := l.Pack(vals)
	if err != nil {
		return nil, fmt.Errorf("task %d: %w", d.ID, err)
	}
	return bits, nil
}

// Decode is Encode backwards (for tools and tests). A dependency count
// above max_deps decodes as max_deps dependencies.
func (l *Layout) Decode(bits *big.Int) isa.Descriptor {
	vals := l.Unpack(bits)
	if vals["ndeps"] > uint64(l.Config.MaxDeps) {
		vals["ndeps"] = uint64(l.Config.MaxDeps)
	}
	var d isa.Descriptor
	for i, f := range l.Fields { // ndeps precedes the deps, so Deps is sized first
		l.refs[i].spec.set(&d, l.refs[i].i, vals[f.Name])
	}
	return d
}

// Slice is the hardware decoder: it cuts a descriptor value (cmd_desc or a
// queue entry) into its fields, by name.
func (l *Layout) Slice(v hdl.Value) map[string]*hdl.Expr { return l.rec.slice(v) }

// EngineFields lists the fields every engine receives on its dispatch port.
func (l *Layout) EngineFields() []Field {
	var out []Field
	for _, f := range l.Fields {
		if f.Engine {
			out = append(out, f)
		}
	}
	return out
}

// EngineFieldsOf lists the fields engine e receives on its dispatch port:
// EngineFields, and with Config.Lean without the operands none of e's
// operations reads (isa.Engine.Operands).
func (l *Layout) EngineFieldsOf(e isa.Engine) []Field {
	if !l.Config.Lean {
		return l.EngineFields()
	}
	reads := map[string]bool{}
	for _, name := range e.Operands(l.Config.Sparse) {
		reads[name] = true
	}
	operand := map[string]bool{}
	for _, name := range isa.OperandNames {
		operand[name] = true
	}
	var out []Field
	for i, f := range l.Fields {
		if name := l.refs[i].spec.name; f.Engine && (!operand[name] || reads[name]) {
			out = append(out, f)
		}
	}
	return out
}

// Markdown documents the layout: the field table and the operation table.
func (l *Layout) Markdown() string {
	c := l.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Descriptor layout: %d bits, field 0 at bit 0 (queues %d, window %d, max_deps %d, id_bits %d, addr_bits %d, dim_bits %d, param_bits %d, flag_bits %d).\n\n",
		l.Width, c.Queues, c.Window, c.MaxDeps, c.IDBits, c.AddrBits, c.DimBits, c.ParamBits, c.FlagBits)
	b.WriteString("| bits | field | width | to engine | meaning |\n|---|---|---|---|---|\n")
	for i, f := range l.Fields {
		doc := f.Doc
		if r := l.refs[i]; r.i > 0 {
			doc = fmt.Sprintf("as %s%d", r.spec.name, 0) // repeated field: documented once
		}
		bits := fmt.Sprintf("%d", f.Offset)
		if f.Width > 1 {
			bits = fmt.Sprintf("%d..%d", f.Offset+f.Width-1, f.Offset)
		}
		to := ""
		if f.Engine {
			to = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", bits, f.Name, f.Width, to, doc)
	}
	b.WriteString("\n| engine | code | op | op code | operands |\n|---|---|---|---|---|\n")
	for _, e := range isa.Engines {
		for _, op := range e.Ops {
			doc := op.Doc
			if op.Sparse {
				doc += " (only with the sparse engine: sparse true)"
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %d | %s |\n", e.Name, e.Engine, op.Name, op.Code, doc)
		}
	}
	return b.String()
}
