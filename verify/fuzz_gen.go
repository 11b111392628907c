package verify

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

// FuzzOptions shape the random designs of RandomDesign. Zero fields take
// the defaults, which are tuned so that one design uses every operator and
// builds with Verilator in a few seconds.
type FuzzOptions struct {
	// SubCircuits is the number of random sub-circuits in the top module,
	// each ending in an output port (default 14).
	SubCircuits int
	// Steps is the number of random operations per sub-circuit (default 10).
	Steps int
	// MaxWidth caps every value of the design (default and at most 200).
	MaxWidth int
	// Avoid leaves constructs out of the design: to step around a known,
	// reported bug while it is being fixed, or to narrow down a failure.
	// Nothing is left out silently: each avoided construct is tallied in
	// Coverage.Avoided and printed by Coverage.String, and a failure
	// report names the list.
	Avoid []Construct
}

// Construct names something RandomDesign can be told to leave out.
type Construct string

// Constructs that FuzzOptions.Avoid understands.
const (
	// ConstMaskedWrite: WriteMasked with a constant (or constant-folded)
	// mask or data.
	ConstMaskedWrite Construct = "constant mask or data of a masked write"
	// WideMaskedWrite: WriteMasked on a memory wider than 64 bits.
	WideMaskedWrite Construct = "masked write to a memory wider than 64 bits"
	// OneBitMaskedWrite: WriteMasked on a memory of 1-bit words.
	OneBitMaskedWrite Construct = "masked write to a memory of 1-bit words"
	// SelectOfFoldedConstant: Slice, Bit, Trunc or a sign extension of a
	// constant-only expression (a constant after Ext, Trunc, Slice, As*).
	SelectOfFoldedConstant Construct = "bit selection of a constant-only expression"
	// ConstAddressOutOfRange: a constant address (or one Verilator can
	// prove constant) >= depth on a memory whose depth is not a power of
	// two.
	ConstAddressOutOfRange Construct = "constant memory address (possibly out of range)"
	// UnsignedCompareConstant: an unsigned lt, le, gt or ge with a constant
	// operand, or one Verilator can prove constant (0 and all ones make
	// the comparison constant).
	UnsignedCompareConstant Construct = "unsigned comparison with a constant"
	// WideConstantShift: a shift by an amount wider than 32 bits that is
	// constant, or that Verilator can prove constant.
	WideConstantShift Construct = "shift by a constant amount wider than 32 bits"
	// NarrowShiftWideAmount: ShlWrap or Shr of a value of at most 64 bits
	// by an amount wider than 64 bits.
	NarrowShiftWideAmount Construct = "shift of at most 64 bits by an amount wider than 64 bits"
)

// Constructs lists every Construct, for help texts and tests.
func Constructs() []Construct {
	return []Construct{ConstMaskedWrite, WideMaskedWrite, OneBitMaskedWrite, SelectOfFoldedConstant,
		ConstAddressOutOfRange, UnsignedCompareConstant, WideConstantShift, NarrowShiftWideAmount}
}

func (o FuzzOptions) avoids(c Construct) bool {
	for _, a := range o.Avoid {
		if a == c {
			return true
		}
	}
	return false
}

func (o FuzzOptions) withDefaults() FuzzOptions {
	if o.SubCircuits <= 0 {
		o.SubCircuits = 14
	}
	if o.Steps <= 0 {
		o.Steps = 10
	}
	if o.MaxWidth <= 0 || o.MaxWidth > 200 {
		o.MaxWidth = 200
	}
	if o.MaxWidth < 8 {
		o.MaxWidth = 8
	}
	return o
}

// RandomDesign builds a random design from seed: a top module of random
// sub-circuits over inputs, registers (with and without enables, random
// reset values), memories (plain and masked writes, several write ports,
// reads with and without enable, power-of-two and other depths, some as
// SRAM macros) and two
// instances of a random child module, which itself instantiates a random
// grandchild. Every hdl operator appears, at widths 1..MaxWidth, signed and
// unsigned. The design always elaborates, is combinationally acyclic
// (values are only built from earlier values; registers and memories may
// feed back) and is the same for the same seed and options.
func RandomDesign(seed uint64, opts FuzzOptions) *hdl.Module {
	m, _ := randomDesign(seed, opts)
	return m
}

// FuzzTopName is the name of the top module of RandomDesign(seed, ...).
func FuzzTopName(seed uint64) string { return fmt.Sprintf("fuzz%d", seed) }

// randomDesign is RandomDesign that also reports which DSL constructs it
// used (counts by construct name), for the coverage report.
func randomDesign(seed uint64, opts FuzzOptions) (*hdl.Module, map[string]int) {
	opts = opts.withDefaults()
	r := rand.New(rand.NewPCG(seed, 0xf022_de51))
	side := rand.New(rand.NewPCG(seed, 0x51de))
	feat := map[string]int{}
	name := FuzzTopName(seed)

	// Grandchild: small, sometimes purely combinational.
	leafGen := newGen(r, hdl.NewModule(name+"_leaf"), opts, feat)
	leafGen.side = side
	leafGen.inputs(2+r.IntN(3), nil)
	stateful := r.IntN(3) != 0
	if stateful {
		leafGen.regs(1 + r.IntN(2))
		leafGen.memory()
	} else {
		feat["module without clock"]++
	}
	leafGen.body(2, 5)
	leafGen.finish()

	// Child: instantiates the grandchild once or twice.
	childGen := newGen(r, hdl.NewModule(name+"_child"), opts, feat)
	childGen.side = side
	childGen.inputs(3+r.IntN(3), nil)
	childGen.regs(1 + r.IntN(3))
	childGen.memory()
	for i := 0; i < 1+r.IntN(2); i++ {
		childGen.instance(leafGen.m)
	}
	childGen.body(3, 6)
	childGen.finish()

	// Top: the interesting widths always appear as inputs.
	top := newGen(r, hdl.NewModule(name), opts, feat)
	top.side = side
	top.isTop = true
	top.inputs(4+r.IntN(5), []int{1, 63, 64, 65, 128, 129, opts.MaxWidth})
	top.regs(4 + r.IntN(4))
	for i := 0; i < 2+r.IntN(2); i++ {
		top.memory()
	}
	top.instance(childGen.m)
	top.body(opts.SubCircuits/2, opts.Steps)
	top.instance(childGen.m) // the second use sees the first one's outputs
	if r.IntN(2) == 0 {
		top.instance(leafGen.m)
	}
	top.body(opts.SubCircuits-opts.SubCircuits/2, opts.Steps)
	top.finish()
	return top.m, feat
}

// opKinds are the generator's operations; each design draws them from a
// shuffled deck so that all of them appear in every design of sufficient
// size. Several map to the same hdl.Op (Shl and ShlWrap, Trunc and Resize).
var opKinds = []string{
	"not", "neg", "andr", "orr", "xorr", "add", "sub", "mul", "and", "or", "xor",
	"shlc", "shl", "shlwrap", "shr", "shrc",
	"eq", "ne", "lt", "le", "gt", "ge",
	"mux", "cat", "slice", "bit", "ext", "trunc", "resize", "assint", "asuint",
	"const", "wire",
}

// gen builds one module.
type gen struct {
	r       *rand.Rand
	m       *hdl.Module
	opts    FuzzOptions
	feat    map[string]int
	pool    []*hdl.Expr
	deck    []string
	regList []*hdl.Signal
	mems    []*fuzzMem
	n       map[string]int // next index per name prefix
	results []*hdl.Expr    // of every step
	side    *rand.Rand     // for choices added later, so that seeds keep their designs
	// isTop: the inputs are driven by the stimulus, never by constants.
	isTop bool
}

type fuzzMem struct {
	mem    *hdl.Memory
	writes int
}

func newGen(r *rand.Rand, m *hdl.Module, opts FuzzOptions, feat map[string]int) *gen {
	return &gen{r: r, m: m, opts: opts, feat: feat, n: map[string]int{}}
}

func (g *gen) name(prefix string) string {
	i := g.n[prefix]
	g.n[prefix]++
	return fmt.Sprintf("%s%d", prefix, i)
}

func (g *gen) add(x *hdl.Expr) *hdl.Expr {
	if constOnly(x) && g.avoid(SelectOfFoldedConstant) {
		return x // never reused, so nothing selects bits of it
	}
	g.pool = append(g.pool, x)
	return x
}

// ---- random widths, types and values ----

var specialWidths = []int{1, 1, 2, 3, 7, 8, 16, 31, 32, 33, 63, 64, 65, 96, 127, 128, 129, 150, 199, 200}

// width draws a width in lo..hi, biased towards the word boundaries.
func (g *gen) width(lo, hi int) int {
	if hi > g.opts.MaxWidth {
		hi = g.opts.MaxWidth
	}
	if lo > hi {
		lo = hi
	}
	switch g.r.IntN(4) {
	case 0, 1:
		var cands []int
		for _, w := range specialWidths {
			if w >= lo && w <= hi {
				cands = append(cands, w)
			}
		}
		if len(cands) > 0 {
			return cands[g.r.IntN(len(cands))]
		}
	case 2:
		return lo + g.r.IntN(min(hi-lo+1, 16))
	}
	return lo + g.r.IntN(hi-lo+1)
}

func (g *gen) typ(hi int) hdl.Type {
	return hdl.Type{Width: g.width(1, hi), Signed: g.r.IntN(2) == 0}
}

// constant is a random constant of t (as a value of t, so it fits).
func (g *gen) constant(t hdl.Type) *hdl.Expr {
	g.feat["constant operand"]++
	return hdl.Const(t, t.Interpret(stim.RandomValue(g.r, t)))
}

// pick returns an earlier value, preferring recent ones so that cones get
// deep.
func (g *gen) pick() *hdl.Expr {
	if len(g.pool) == 0 {
		return g.constant(g.typ(g.opts.MaxWidth))
	}
	if g.r.IntN(2) == 0 {
		k := min(len(g.pool), 6)
		return g.pool[len(g.pool)-1-g.r.IntN(k)]
	}
	return g.pool[g.r.IntN(len(g.pool))]
}

// operand returns a value of exactly type t built from an earlier value
// (or, now and then, a constant).
func (g *gen) operand(t hdl.Type) *hdl.Expr {
	if g.r.IntN(12) == 0 {
		return g.constant(t)
	}
	return g.coerce(g.pick(), t)
}

// operandOfSign is an operand of signedness signed and a width in 1..hi,
// often exactly like (so both forms of binary operands are covered).
func (g *gen) operandOfSign(like hdl.Type, hi int) *hdl.Expr {
	if g.r.IntN(2) == 0 && like.Width <= hi {
		return g.operand(like)
	}
	return g.operand(hdl.Type{Width: g.width(1, hi), Signed: like.Signed})
}

// coerce converts v to t with a random choice of the DSL's conversions.
func (g *gen) coerce(v *hdl.Expr, t hdl.Type) *hdl.Expr {
	signFirst := g.r.IntN(2) == 0
	if signFirst {
		v = g.sign(v, t.Signed)
	}
	switch w := v.Width(); {
	case w < t.Width:
		if g.r.IntN(2) == 0 {
			g.feat["Ext"]++
			v = v.Ext(t.Width)
		} else {
			g.feat["Resize (widen)"]++
			v = v.Resize(t.Width)
		}
	case w > t.Width:
		switch g.r.IntN(3) {
		case 0:
			g.feat["Trunc"]++
			v = v.Trunc(t.Width)
		case 1:
			g.feat["Resize (narrow)"]++
			v = v.Resize(t.Width)
		default:
			lo := g.r.IntN(w - t.Width + 1)
			g.feat["Slice"]++
			v = v.Slice(lo+t.Width-1, lo)
		}
	}
	return g.sign(v, t.Signed)
}

func (g *gen) sign(v *hdl.Expr, signed bool) *hdl.Expr {
	switch {
	case signed && !v.Signed():
		g.feat["AsSInt"]++
		return v.AsSInt()
	case !signed && v.Signed():
		g.feat["AsUInt"]++
		return v.AsUInt()
	}
	return v
}

// boolean is a UInt(1) derived from an earlier value.
func (g *gen) boolean() *hdl.Expr {
	v := g.pick()
	switch g.r.IntN(6) {
	case 0:
		if v.Type == hdl.Bool {
			return v
		}
		fallthrough
	case 1:
		g.feat["Bit"]++
		return v.Bit(g.r.IntN(v.Width()))
	case 2:
		return v.OrR()
	case 3:
		return v.XorR()
	case 4:
		o := g.operand(v.Type)
		if !v.Signed() && g.avoid(UnsignedCompareConstant) {
			v, o = g.opaqueCompare(v, o)
		}
		return v.Lt(o)
	}
	return g.coerce(v, hdl.Bool)
}

// amount is an unsigned shift amount of a random width (up to the maximum:
// amounts wider than 64 bits are a corner worth covering).
func (g *gen) amount(shifted int) *hdl.Expr {
	w := 1 + g.r.IntN(8)
	if g.r.IntN(3) == 0 {
		w = g.width(1, g.opts.MaxWidth)
	}
	if shifted <= 64 && w > 64 && g.avoid(NarrowShiftWideAmount) {
		w = g.width(33, 64)
	}
	if w > 32 {
		return g.opaqueIf(WideConstantShift, hdl.UInt(w))
	}
	return g.operand(hdl.UInt(w))
}

// ---- module structure ----

func (g *gen) inputs(n int, widths []int) {
	for _, w := range widths {
		t := hdl.Type{Width: min(w, g.opts.MaxWidth), Signed: g.r.IntN(2) == 0}
		g.add(&g.m.Input(g.name("i"), t).Expr)
	}
	for i := 0; i < n; i++ {
		g.add(&g.m.Input(g.name("i"), g.typ(g.opts.MaxWidth)).Expr)
	}
	g.add(&g.m.Input(g.name("i"), hdl.Bool).Expr)
	g.add(&g.m.Input(g.name("i"), hdl.UInt(1+g.r.IntN(4))).Expr) // a small shift amount
}

// regs declares registers; their next values are set in finish, so they
// can read anything the module computes.
func (g *gen) regs(n int) {
	for i := 0; i < n; i++ {
		t := g.typ(g.opts.MaxWidth)
		init := t.Interpret(stim.RandomValue(g.r, t))
		r := g.m.RegBig(g.name("r"), t, init)
		g.regList = append(g.regList, r)
		g.add(&r.Expr)
	}
}

var memDepths = []int{1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 32, 33, 64, 100}

// memory declares a memory and its read ports now (reading earlier
// values) and its write ports in finish.
func (g *gen) memory() {
	depth := memDepths[g.r.IntN(len(memDepths))]
	t := g.typ(g.opts.MaxWidth)
	if g.r.IntN(6) == 0 {
		t = hdl.Type{Width: 1, Signed: g.r.IntN(2) == 0}
	}
	mem := g.m.Memory(g.name("mem"), depth, t)
	if 1<<mem.AddrType.Width == depth {
		g.feat["memory of power-of-two depth"]++
	} else {
		g.feat["memory of other depth"]++
	}
	reads := g.r.IntN(3) // sometimes a memory nobody reads
	if reads == 0 {
		g.feat["memory without read port"]++
	}
	for i := 0; i < reads; i++ {
		addr := g.address(mem)
		var q *hdl.Signal
		if g.r.IntN(2) == 0 {
			g.feat["memory read with enable"]++
			q = mem.ReadEnabled(g.name(mem.Name+"_q"), addr, g.boolean())
		} else {
			g.feat["memory read"]++
			q = mem.Read(g.name(mem.Name+"_q"), addr)
		}
		g.add(&q.Expr)
	}
	fm := &fuzzMem{mem: mem, writes: 1 + g.r.IntN(3)}
	g.mems = append(g.mems, fm)
	// A memory with one write port and at most one read port may be an
	// SRAM macro. The choice comes from a side stream, so that it does
	// not change the rest of the design.
	if fm.writes == 1 && reads <= 1 && g.side.IntN(4) != 0 {
		g.feat["memory as SRAM macro"]++
		mem.AsMacro()
	}
}

// instance places child, connecting its inputs from earlier values, and
// adds its outputs to the pool.
func (g *gen) instance(child *hdl.Module) {
	g.feat["instance"]++
	in := g.m.Instance(g.name("u"), child)
	for _, p := range child.Ports {
		if p.Kind != hdl.Input {
			continue
		}
		v := g.operand(p.Type)
		if p.Type.Width > 1 && g.r.IntN(4) == 0 { // narrower: Connect extends it
			v = g.operand(hdl.Type{Width: g.width(1, p.Type.Width), Signed: p.Type.Signed})
		}
		in.Connect(p.Name, v)
	}
	for _, p := range child.Ports {
		if p.Kind == hdl.Output {
			o := in.Out(p.Name)
			if g.r.IntN(3) == 0 { // an output driven straight by an instance output
				g.output(&o.Expr)
			}
			g.add(&o.Expr)
		}
	}
}

// output drives a new output port with v and makes it readable.
func (g *gen) output(v *hdl.Expr) {
	o := g.m.Output(g.name("o"), v.Type)
	o.Set(v)
	g.add(&o.Expr)
}

// body adds n sub-circuits of steps operations each; every one ends in an
// output port, and some intermediate values become outputs too.
func (g *gen) body(n, steps int) {
	for i := 0; i < n; i++ {
		var last *hdl.Expr
		for s := 0; s < steps; s++ {
			last = g.step()
			if s < steps-1 && g.r.IntN(4) == 0 {
				g.output(last)
			}
		}
		g.output(last)
	}
}

// finish gives registers their next values and memories their write ports.
func (g *gen) finish() {
	for _, r := range g.regList {
		switch g.r.IntN(8) {
		case 0:
			g.feat["register that holds its reset value"]++
			continue
		case 1:
			g.feat["register with enable but no next value"]++
			r.SetEnable(g.boolean())
			continue
		}
		next := g.operand(r.Type)
		if r.Width() > 1 && g.r.IntN(4) == 0 { // narrower: SetNext extends it
			next = g.operand(hdl.Type{Width: g.width(1, r.Width()), Signed: r.Signed()})
		}
		r.SetNext(next)
		if g.r.IntN(2) == 0 {
			g.feat["register with enable"]++
			r.SetEnable(g.boolean())
		} else {
			g.feat["register without enable"]++
		}
	}
	for _, fm := range g.mems {
		mem := fm.mem
		if fm.writes > 1 {
			g.feat["memory with several write ports"]++
		}
		for i := 0; i < fm.writes; i++ {
			addr := g.address(mem)
			data := g.operand(mem.Type)
			en := g.boolean()
			if g.r.IntN(2) == 0 && !(mem.Type.Width > 64 && g.avoid(WideMaskedWrite)) &&
				!(mem.Type.Width == 1 && g.avoid(OneBitMaskedWrite)) {
				g.feat["masked memory write"]++
				mask := g.operand(hdl.UInt(mem.Type.Width))
				if mem.Type.Width > 1 && (constOnly(mask) || constOnly(data)) && g.avoid(ConstMaskedWrite) {
					mask, data = g.live(hdl.UInt(mem.Type.Width)), g.live(mem.Type)
				}
				mem.WriteMasked(addr, data, en, mask)
			} else {
				g.feat["memory write"]++
				mem.Write(addr, data, en)
			}
		}
	}
	if g.r.IntN(2) == 0 {
		// A readback of a register straight to an output.
		if len(g.regList) > 0 {
			r := g.regList[g.r.IntN(len(g.regList))]
			g.output(&r.Expr)
		}
	}
	// Every result nothing reads becomes an output too, so that no
	// operation is left out of the netlist (and of the comparison).
	reached := g.reachable()
	for _, x := range g.results {
		if !reached[x] {
			g.output(x)
		}
	}
}

// reachable is the set of nodes the module's signals, registers, memory
// ports and instances read.
func (g *gen) reachable() map[*hdl.Expr]bool {
	seen := map[*hdl.Expr]bool{}
	var walk func(x *hdl.Expr)
	walk = func(x *hdl.Expr) {
		if x == nil || seen[x] {
			return
		}
		seen[x] = true
		if x.Op != hdl.OpSignal {
			for _, a := range x.Args {
				walk(a)
			}
		}
	}
	eachRoot(g.m, walk)
	return seen
}

// step performs one random operation and returns its result, which joins
// the pool.
func (g *gen) step() *hdl.Expr {
	if len(g.deck) == 0 {
		g.deck = append(g.deck, opKinds...)
		g.r.Shuffle(len(g.deck), func(i, j int) { g.deck[i], g.deck[j] = g.deck[j], g.deck[i] })
	}
	k := g.deck[len(g.deck)-1]
	g.deck = g.deck[:len(g.deck)-1]
	g.feat["op "+k]++
	x := g.op(k)
	if x.Width() > g.opts.MaxWidth { // cannot happen by construction; keep the promise anyway
		x = x.Trunc(g.opts.MaxWidth)
	}
	g.results = append(g.results, x)
	return g.add(x)
}

func (g *gen) op(k string) *hdl.Expr {
	r := g.r
	maxW := g.opts.MaxWidth
	switch k {
	case "not":
		return g.operand(g.typ(maxW)).Not()
	case "neg":
		return g.operand(g.typ(maxW - 1)).Neg()
	case "andr":
		return g.operand(g.typ(maxW)).AndR()
	case "orr":
		return g.operand(g.typ(maxW)).OrR()
	case "xorr":
		return g.operand(g.typ(maxW)).XorR()
	case "add", "sub":
		t := g.typ(maxW - 1)
		a, b := g.operand(t), g.operandOfSign(t, maxW-1)
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		if k == "add" {
			return a.Add(b)
		}
		return a.Sub(b)
	case "mul":
		w := g.width(2, maxW)
		wa := 1 + r.IntN(w-1)
		if r.IntN(3) == 0 {
			wa = w / 2 // 32x32, 64x64: the word boundaries of the product
		}
		signed := r.IntN(2) == 0
		return g.operand(hdl.Type{Width: wa, Signed: signed}).Mul(g.operand(hdl.Type{Width: w - wa, Signed: signed}))
	case "and", "or", "xor":
		t := g.typ(maxW)
		a, b := g.operand(t), g.operandOfSign(t, maxW)
		switch k {
		case "and":
			return a.And(b)
		case "or":
			return a.Or(b)
		}
		return a.Xor(b)
	case "shlc":
		t := g.typ(maxW - 1)
		n := 1 + r.IntN(maxW-t.Width)
		if r.IntN(2) == 0 {
			n = 1 + r.IntN(min(8, maxW-t.Width))
		}
		g.feat["ShlConst"]++
		return g.operand(t).ShlConst(n)
	case "shl":
		t := g.typ(maxW - 1)
		kmax := min(7, bits.Len(uint(maxW-t.Width+1))-1) // w + 2^k - 1 <= maxW
		g.feat["Shl (growing)"]++
		return g.operand(t).Shl(g.operand(hdl.UInt(1 + r.IntN(kmax))))
	case "shlwrap":
		g.feat["ShlWrap"]++
		t := g.typ(maxW)
		return g.operand(t).ShlWrap(g.amount(t.Width))
	case "shr":
		t := g.typ(maxW)
		if t.Signed {
			g.feat["Shr (arithmetic)"]++
		} else {
			g.feat["Shr (logical)"]++
		}
		return g.operand(t).Shr(g.amount(t.Width))
	case "shrc":
		t := g.typ(maxW)
		n := 1 + r.IntN(t.Width)
		if r.IntN(3) == 0 {
			n = t.Width + r.IntN(3)
		}
		if n >= t.Width {
			g.feat["ShrConst (n >= width)"]++
		} else {
			g.feat["ShrConst"]++
		}
		return g.operand(t).ShrConst(n)
	case "eq", "ne", "lt", "le", "gt", "ge":
		t := g.typ(maxW)
		a, b := g.operand(t), g.operandOfSign(t, maxW)
		if !t.Signed && k != "eq" && k != "ne" && g.avoid(UnsignedCompareConstant) {
			a, b = g.opaqueCompare(a, b)
		}
		switch k {
		case "eq":
			return a.Eq(b)
		case "ne":
			return a.Ne(b)
		case "lt":
			return a.Lt(b)
		case "le":
			return a.Le(b)
		case "gt":
			return a.Gt(b)
		}
		return a.Ge(b)
	case "mux":
		t := g.typ(maxW)
		return hdl.Mux(g.boolean(), g.operand(t), g.operandOfSign(t, maxW))
	case "cat":
		total := g.width(1, maxW)
		var parts []hdl.Value
		for left := total; left > 0; {
			w := 1 + r.IntN(left)
			if len(parts) == 3 {
				w = left
			}
			parts = append(parts, g.operand(hdl.Type{Width: w, Signed: r.IntN(2) == 0}))
			left -= w
		}
		return hdl.Cat(parts...)
	case "slice":
		v := g.pick()
		lo := r.IntN(v.Width())
		hi := lo + r.IntN(v.Width()-lo)
		g.feat["Slice"]++
		return v.Slice(hi, lo)
	case "bit":
		v := g.pick()
		g.feat["Bit"]++
		return v.Bit(r.IntN(v.Width()))
	case "ext":
		v := g.pick()
		if v.Width() == maxW {
			v = v.Trunc(maxW - 1 - r.IntN(maxW-1))
		}
		g.feat["Ext"]++
		return v.Ext(g.width(v.Width()+1, maxW))
	case "trunc":
		v := g.pick()
		if v.Width() == 1 {
			v = g.operand(hdl.Type{Width: g.width(2, maxW), Signed: v.Signed()})
		}
		g.feat["Trunc"]++
		return v.Trunc(g.width(1, v.Width()-1))
	case "resize":
		v := g.pick()
		g.feat["Resize"]++
		w := g.width(1, maxW)
		if w == v.Width() {
			w = max(1, w-1)
			if w == v.Width() {
				w++
			}
		}
		return v.Resize(w)
	case "assint":
		g.feat["AsSInt"]++
		return g.operand(hdl.UInt(g.width(1, maxW))).AsSInt()
	case "asuint":
		g.feat["AsUInt"]++
		return g.operand(hdl.SInt(g.width(1, maxW))).AsUInt()
	case "const":
		// A constant-only expression combined with a live value: both
		// sides constant-fold their part.
		t := g.typ(maxW - 1)
		c := g.constant(t)
		switch r.IntN(4) {
		case 0:
			c = c.Add(g.constant(t)).Trunc(t.Width)
		case 1:
			c = g.coerce(c.Not(), t)
		case 2:
			c = g.coerce(c.ShrConst(r.IntN(t.Width)+1), t)
		}
		if r.IntN(2) == 0 {
			return c.Xor(g.operand(t))
		}
		return c.Add(g.operand(t))
	case "wire":
		v := g.pick()
		g.feat["named wire"]++
		w := g.m.Wire(g.name("w"), v.Type)
		w.Set(v)
		return &w.Expr
	}
	panic("verify: unknown fuzz operation " + k)
}

const avoidedPrefix = "AVOIDED: "

// avoid reports whether c is to be left out, tallying it when so.
func (g *gen) avoid(c Construct) bool {
	if g.opts.avoids(c) {
		g.feat[avoidedPrefix+string(c)]++
		return true
	}
	return false
}

// live is an operand of type t that is not constant-only.
func (g *gen) live(t hdl.Type) *hdl.Expr {
	for i := 0; i < 20; i++ {
		if x := g.coerce(g.pick(), t); !constOnly(x) {
			return x
		}
	}
	return g.coerce(g.pool[0], t) // the first input
}

// address is an address operand for mem.
func (g *gen) address(mem *hdl.Memory) *hdl.Expr {
	if 1<<mem.AddrType.Width == mem.Depth { // every address is in range
		return g.operand(mem.AddrType)
	}
	return g.opaqueIf(ConstAddressOutOfRange, mem.AddrType)
}

// liveIf is operand(t), or live(t) when c is avoided and operand drew a
// constant.
func (g *gen) liveIf(c Construct, t hdl.Type) *hdl.Expr {
	x := g.operand(t)
	if constOnly(x) && g.avoid(c) {
		return g.live(t)
	}
	return x
}

// opaqueCompare replaces the operands of an unsigned ordered comparison
// by values Verilator cannot prove constant (it propagates constants
// through wires, instances and operators such as x*0): registers, memory
// read data and top-level inputs, taken whole. Without such values it
// makes the comparison signed.
func (g *gen) opaqueCompare(a, b *hdl.Expr) (*hdl.Expr, *hdl.Expr) {
	cands := g.opaques()
	if len(cands) == 0 {
		return g.live(a.Type).AsSInt(), g.live(b.Type).AsSInt()
	}
	pick := func() *hdl.Expr { return cands[g.r.IntN(len(cands))].AsUInt() }
	return pick(), pick()
}

// opaques are the values Verilator cannot prove constant.
func (g *gen) opaques() []*hdl.Expr {
	var cands []*hdl.Expr
	for _, x := range g.pool {
		if x.Op == hdl.OpSignal && (x.Sig.Kind == hdl.Reg || x.Sig.Kind == hdl.MemRead || g.isTop && x.Sig.Kind == hdl.Input) {
			cands = append(cands, x)
		}
	}
	return cands
}

// opaqueIf is operand(t), or when c is avoided a value of type t built
// from a register, memory data or top-level input by extension or bit
// selection, which Verilator cannot prove constant either.
func (g *gen) opaqueIf(c Construct, t hdl.Type) *hdl.Expr {
	if !g.avoid(c) {
		return g.operand(t)
	}
	if cands := g.opaques(); len(cands) > 0 {
		return g.coerce(cands[g.r.IntN(len(cands))], t)
	}
	return g.live(t)
}

// constOnly reports whether x depends on no signal.
func constOnly(x *hdl.Expr) bool {
	if x.Op == hdl.OpConst {
		return true
	}
	if x.Op == hdl.OpSignal {
		return false
	}
	for _, a := range x.Args {
		if !constOnly(a) {
			return false
		}
	}
	return true
}
