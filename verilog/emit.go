package verilog

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hwgen/hwgen/hdl"
)

// File is one emitted file: a module in <module>.v, or the file list.
type File struct {
	Name string
	Data []byte
}

// Emit renders every module of d, children first, plus <top>.f, a file
// list in dependency order that Verilator, Icarus and Yosys can all read.
func Emit(d *hdl.Design) []File {
	var files []File
	var list bytes.Buffer
	macros := map[string]bool{}
	for _, m := range d.Modules {
		for _, mem := range m.Mems {
			if !mem.Macro || macros[mem.MacroName()] {
				continue
			}
			macros[mem.MacroName()] = true
			md := hdl.MustElaborate(macroModel(mem))
			text := newModuleWriter(md.Top, md.Info).render()
			files = append(files, File{Name: md.Top.Name + ".v", Data: append([]byte(macroHeader(mem)), text...)})
			fmt.Fprintf(&list, "%s.v\n", md.Top.Name)
		}
		w := newModuleWriter(m, d.Info)
		files = append(files, File{Name: m.Name + ".v", Data: w.render()})
		fmt.Fprintf(&list, "%s.v\n", m.Name)
	}
	files = append(files, File{Name: d.Top.Name + ".f", Data: list.Bytes()})
	return files
}

// moduleWriter renders one module.
type moduleWriter struct {
	m     *hdl.Module
	info  map[*hdl.Module]*hdl.ModuleInfo
	self  *hdl.ModuleInfo
	names map[*hdl.Expr]string // spelling of nodes already given a name
	usage *usage
	fold  *folder
	temps int
	// same maps a temporary's declaration (type and right-hand side) to
	// its name, so an expression built twice is declared once.
	same map[string]string
	// class numbers nodes by structure: twins (the same operator on the
	// same operands, built twice) share a class, as they share a wire.
	class map[*hdl.Expr]int
	keys  map[string]int
	// readers counts the places that read each class: distinct operand
	// slots of distinct reader classes, plus every root. A class read
	// in one place is written inline there where that is safe (inline).
	readers map[int]int
	// driven maps the class of a wire's or output's driver, read in
	// other places too, to the signal: they read its name.
	driven map[int]*hdl.Signal
	logic  bytes.Buffer // temporary wires and assigns, in dependency order
}

func newModuleWriter(m *hdl.Module, info map[*hdl.Module]*hdl.ModuleInfo) *moduleWriter {
	w := &moduleWriter{m: m, info: info, self: info[m], names: map[*hdl.Expr]string{},
		usage: newUsage(), fold: newFolder(), same: map[string]string{},
		class: map[*hdl.Expr]int{}, keys: map[string]int{}, readers: map[int]int{}, driven: map[int]*hdl.Signal{}}
	for _, s := range m.Signals {
		w.names[&s.Expr] = s.Name
		if s.Kind != hdl.Output {
			w.usage.track(s.Name, s.Type.Width)
		}
	}
	w.countReaders()
	for _, s := range m.Signals {
		if s.Kind != hdl.Output && s.Kind != hdl.Wire || s.Driver == nil || s.Driver.Type != s.Type {
			continue
		}
		x := s.Driver
		if _, constant := w.fold.value(x); constant || x.Op == hdl.OpSignal || w.isSelect(x) {
			continue
		}
		if c := w.classOf(x); w.readers[c] > 1 && w.driven[c] == nil {
			w.driven[c] = s
		}
	}
	return w
}

// roots lists every place outside the expression graph that reads a node,
// in a fixed order so the output is deterministic.
func (w *moduleWriter) roots() []*hdl.Expr {
	var r []*hdl.Expr
	for _, s := range w.m.Signals {
		switch s.Kind {
		case hdl.Output, hdl.Wire:
			r = append(r, s.Driver)
		case hdl.Reg:
			r = append(r, s.Next, s.Enable)
		}
	}
	for _, mem := range w.m.Mems {
		for _, p := range mem.Writes {
			r = append(r, p.Addr, p.Data, p.En, p.Mask)
		}
		for _, p := range mem.Reads {
			r = append(r, p.Addr, p.En)
		}
	}
	for _, in := range w.m.Insts {
		for _, p := range in.Module.Ports {
			if p.Kind == hdl.Input {
				r = append(r, in.Inputs[p.Name])
			}
		}
	}
	return r
}

// classOf numbers x by its structure: the operator, type and parameters
// and the classes of its operands; a constant by its type and value, a
// signal by itself. Twins get one number.
func (w *moduleWriter) classOf(x *hdl.Expr) int {
	if c, ok := w.class[x]; ok {
		return c
	}
	var key string
	if x.Op == hdl.OpSignal {
		key = fmt.Sprintf("s %p", x.Sig)
	} else if v, ok := w.fold.value(x); ok {
		key = fmt.Sprintf("k %v %s", x.Type, v.Text(16))
	} else {
		args := make([]int, len(x.Args))
		for i, a := range x.Args {
			args[i] = w.classOf(a)
		}
		key = fmt.Sprintf("%d %v %d %d %d %v", x.Op, x.Type, x.Amount, x.Hi, x.Lo, args)
	}
	c, ok := w.keys[key]
	if !ok {
		c = len(w.keys)
		w.keys[key] = c
	}
	w.class[x] = c
	return c
}

// countReaders counts the readers of every class: each root, and each
// operand slot of a reader class (a class is spelled once however many
// twins it has, so its operands are read once). The operands of a node
// written as a literal are never spelled and do not count.
func (w *moduleWriter) countReaders() {
	seen := map[*hdl.Expr]bool{}
	slots := map[[2]int]bool{}
	var visit func(x *hdl.Expr)
	visit = func(x *hdl.Expr) {
		if seen[x] {
			return
		}
		seen[x] = true
		if x.Op == hdl.OpSignal {
			return
		}
		if _, ok := w.fold.value(x); ok {
			return
		}
		c := w.classOf(x)
		for i, a := range x.Args {
			if slot := [2]int{c, i}; !slots[slot] {
				slots[slot] = true
				w.readers[w.classOf(a)]++
			}
			visit(a)
		}
	}
	for _, x := range w.roots() {
		if x != nil {
			w.readers[w.classOf(x)]++
			visit(x)
		}
	}
}

func (w *moduleWriter) render() []byte {
	var b bytes.Buffer
	m := w.m
	fmt.Fprintf(&b, "// Generated by hwgen: module %s. Do not edit; change the Go code that builds it.\n", m.Name)
	b.WriteString("`default_nettype none\n\n")
	fmt.Fprintf(&b, "module %s (\n", m.Name)
	var ports []string
	if w.self.UsesClock {
		ports = append(ports, "  input  wire clk")
	}
	if w.self.UsesReset {
		ports = append(ports, "  input  wire rst")
	}
	for _, p := range m.Ports {
		dir := "input "
		if p.Kind == hdl.Output {
			dir = "output"
		}
		ports = append(ports, fmt.Sprintf("  %s wire %s%s", dir, declType(p.Type), p.Name))
	}
	b.WriteString(strings.Join(ports, ",\n"))
	b.WriteString("\n);\n")

	// Names first, so every later reference is to something declared.
	var decl bytes.Buffer
	for _, s := range m.Signals {
		switch {
		case s.Kind == hdl.Reg, s.Kind == hdl.MemRead && !s.ReadPort.Memory.Macro:
			fmt.Fprintf(&decl, "  reg  %s%s;\n", declType(s.Type), s.Name)
		case s.Kind == hdl.Wire, s.Kind == hdl.InstOut, s.Kind == hdl.MemRead:
			fmt.Fprintf(&decl, "  wire %s%s;\n", declType(s.Type), s.Name)
		}
	}
	for _, mem := range m.Mems {
		if mem.Macro {
			continue
		}
		fmt.Fprintf(&decl, "  reg  %s%s [0:%d];\n", declType(mem.Type), mem.Name, mem.Depth-1)
		if w.maskLoop(mem) {
			fmt.Fprintf(&decl, "  integer _i_%s;\n", mem.Name)
		}
	}

	// Drivers of outputs and wires; an operator read only here is written
	// inline instead of through a temporary.
	var assigns bytes.Buffer
	for _, s := range m.Signals {
		if s.Kind == hdl.Output || s.Kind == hdl.Wire {
			text := ""
			if x := s.Driver; w.driven[w.classOf(x)] == s {
				text = w.rhs(x) // others read s for x
			} else {
				text = w.driverText(x, s.Type.Width)
			}
			fmt.Fprintf(&assigns, "  assign %s = %s;\n", s.Name, text)
		}
	}
	seq := w.sequential()
	insts := w.instances()

	b.Write(decl.Bytes())
	if w.logic.Len() > 0 || assigns.Len() > 0 {
		b.WriteString("\n")
		b.Write(w.logic.Bytes())
		b.Write(assigns.Bytes())
	}
	if len(insts) > 0 {
		b.WriteString("\n")
		b.Write(insts)
	}
	if len(seq) > 0 {
		b.WriteString("\n")
		b.Write(seq)
	}
	if parts := w.usage.unusedParts(); len(parts) > 0 {
		fmt.Fprintf(&b, "\n  // Computed but never read: kept for lint, removed by synthesis.\n")
		fmt.Fprintf(&b, "  wire _unused_ok = &{1'b0, %s, 1'b0};\n", strings.Join(parts, ", "))
	}
	b.WriteString("endmodule\n\n`default_nettype wire\n")
	return b.Bytes()
}

// maskLoopMax is the widest word written bit by bit with a for loop;
// Verilator does not unroll longer loops of nonblocking array writes
// (BLKLOOPINIT), so wider masked words are written out bit by bit.
const maskLoopMax = 64

// maskLoop reports whether a write port of mem needs the loop variable.
func (w *moduleWriter) maskLoop(mem *hdl.Memory) bool {
	for _, p := range mem.Writes {
		if p.Mask != nil && mem.Type.Width > 1 && mem.Type.Width <= maskLoopMax && !w.outOfRange(mem, p.Addr) {
			return true
		}
	}
	return false
}

// neverRead reports a memory with no read port that reaches the array.
func (w *moduleWriter) neverRead(mem *hdl.Memory) bool {
	for _, p := range mem.Reads {
		if !w.outOfRange(mem, p.Addr) {
			return false
		}
	}
	return true
}

// neverWritten reports a memory all of whose write ports have a constant
// address past its end.
func (w *moduleWriter) neverWritten(mem *hdl.Memory) bool {
	for _, p := range mem.Writes {
		if !w.outOfRange(mem, p.Addr) {
			return false
		}
	}
	return true
}

// outOfRange reports a constant address past the memory's end: such a
// port never writes and always reads 0, and Verilator warns about the
// index (SELRANGE) even behind a guard, so the port is not written out.
func (w *moduleWriter) outOfRange(mem *hdl.Memory, addr *hdl.Expr) bool {
	a, ok := w.fold.value(addr)
	return ok && a.Cmp(bigInt(mem.Depth)) >= 0
}

// driverText is the right-hand side for a named signal's assign.
func (w *moduleWriter) driverText(x *hdl.Expr, width int) string {
	text, _ := w.rootText(x, width)
	return text
}

// rootText spells x where a root reads it: an assign or a nonblocking
// assignment to something width bits wide, a condition, an index, a port.
// An operator read only here is written out in place (inlined reports
// it) when it is exactly width bits wide, so that Verilog evaluates it at
// its own width; otherwise it is a name or literal.
func (w *moduleWriter) rootText(x *hdl.Expr, width int) (text string, inlined bool) {
	if x.Type.Width != width || !w.inlinable(x) {
		return w.operand(x), false
	}
	return w.rhs(x), true
}

// sequential renders registers and memories.
func (w *moduleWriter) sequential() []byte {
	var b bytes.Buffer
	var regs []*hdl.Signal
	for _, s := range w.m.Signals {
		if s.Kind == hdl.Reg {
			regs = append(regs, s)
		}
	}
	var resets, updates, free bytes.Buffer
	for _, r := range regs {
		update, indent := &updates, "      "
		if r.Init == nil { // no reset: its own always block, rst not read
			update, indent = &free, "    "
		} else {
			fmt.Fprintf(&resets, "      %s <= %s;\n", r.Name, literal(r.Type, r.Init))
		}
		if r.Next == nil {
			continue
		}
		next := w.driverText(r.Next, r.Type.Width)
		if r.Enable != nil {
			fmt.Fprintf(update, "%sif (%s) %s <= %s;\n", indent, w.driverText(r.Enable, r.Enable.Type.Width), r.Name, next)
		} else {
			fmt.Fprintf(update, "%s%s <= %s;\n", indent, r.Name, next)
		}
	}
	if resets.Len() > 0 {
		b.WriteString("  always @(posedge clk) begin\n    if (rst) begin\n")
		b.Write(resets.Bytes())
		if updates.Len() > 0 {
			b.WriteString("    end else begin\n")
			b.Write(updates.Bytes())
		}
		b.WriteString("    end\n  end\n")
	}
	if free.Len() > 0 {
		b.WriteString("  always @(posedge clk) begin\n")
		b.Write(free.Bytes())
		b.WriteString("  end\n")
	}
	for _, mem := range w.m.Mems {
		if !mem.Macro {
			w.memory(&b, mem)
		}
	}
	return b.Bytes()
}

func (w *moduleWriter) memory(b *bytes.Buffer, mem *hdl.Memory) {
	pow2 := 1<<mem.AddrType.Width == mem.Depth
	// A variable address of a memory whose depth is not a power of two
	// is guarded, so every simulator ignores a write past the end and
	// reads 0 there (Icarus would read x); a constant one needs no guard.
	guarded := func(addr *hdl.Expr) bool {
		_, constant := w.fold.value(addr)
		return !pow2 && !constant
	}
	inRange := func(addr *hdl.Expr, spelled string) string {
		if !guarded(addr) {
			return ""
		}
		return fmt.Sprintf(" && %s < %s", spelled, literal(mem.AddrType, bigInt(mem.Depth)))
	}
	// address spells an address: inline (an index is self-determined)
	// unless the guard or the bit-by-bit write repeats it.
	address := func(addr *hdl.Expr, once bool) string {
		if once && !guarded(addr) {
			return w.driverText(addr, addr.Type.Width)
		}
		return w.operand(addr)
	}
	fmt.Fprintf(b, "  always @(posedge clk) begin\n")
	for _, p := range mem.Writes {
		if w.outOfRange(mem, p.Addr) {
			continue
		}
		addr := address(p.Addr, p.Mask == nil || mem.Type.Width == 1)
		en, inlined := w.rootText(p.En, p.En.Type.Width)
		if more := inRange(p.Addr, addr); more != "" || p.Mask != nil && mem.Type.Width == 1 {
			if inlined {
				en = "(" + en + ")"
			}
			en += more
		}
		guard := en
		if p.Mask == nil {
			fmt.Fprintf(b, "    if (%s) %s[%s] <= %s;\n", guard, mem.Name, addr, w.driverText(p.Data, mem.Type.Width))
			continue
		}
		if mem.Type.Width == 1 {
			fmt.Fprintf(b, "    if (%s && %s) %s[%s] <= %s;\n", guard, w.operand(p.Mask), mem.Name, addr, w.operand(p.Data))
			continue
		}
		// Bits are selected from the mask and the data, so both need
		// names (a literal has no bits to select in Verilog).
		mask, data := w.named(p.Mask), w.named(p.Data)
		if mem.Type.Width > maskLoopMax {
			fmt.Fprintf(b, "    if (%s) begin\n", guard)
			for i := 0; i < mem.Type.Width; i++ {
				fmt.Fprintf(b, "      if (%s[%d]) %s[%s][%d] <= %s[%d];\n", mask, i, mem.Name, addr, i, data, i)
			}
			b.WriteString("    end\n")
			continue
		}
		i := "_i_" + mem.Name
		fmt.Fprintf(b, "    if (%s)\n      for (%s = 0; %s < %d; %s = %s + 1)\n        if (%s[%s]) %s[%s][%s] <= %s[%s];\n",
			guard, i, i, mem.Type.Width, i, i, mask, i, mem.Name, addr, i, data, i)
	}
	if len(mem.Writes) > 0 && w.neverWritten(mem) {
		// Every write port addresses past the end. A write that is never
		// taken keeps the array driven for lint (UNDRIVEN).
		fmt.Fprintf(b, "    if (1'b0) %s[%s] <= %s; // every write port addresses past the end\n",
			mem.Name, literal(mem.AddrType, bigInt(0)), literal(mem.Type, bigInt(0)))
	}
	for _, p := range mem.Reads {
		read := literal(mem.Type, bigInt(0))
		if !w.outOfRange(mem, p.Addr) {
			addr := address(p.Addr, true)
			read = fmt.Sprintf("%s[%s]", mem.Name, addr)
			if g := inRange(p.Addr, addr); g != "" {
				read = fmt.Sprintf("(%s < %s) ? %s : %s", addr, literal(mem.AddrType, bigInt(mem.Depth)), read, literal(mem.Type, bigInt(0)))
			}
		}
		if p.En != nil {
			fmt.Fprintf(b, "    if (%s) %s <= %s;\n", w.driverText(p.En, p.En.Type.Width), p.Data.Name, read)
		} else {
			fmt.Fprintf(b, "    %s <= %s;\n", p.Data.Name, read)
		}
	}
	if w.neverRead(mem) {
		// A memory nobody reads still must not trip UNUSED.
		w.usage.extra = append(w.usage.extra, fmt.Sprintf("%s[0]", mem.Name))
	}
	b.WriteString("  end\n")
}

// instances renders child module instances and SRAM macros.
func (w *moduleWriter) instances() []byte {
	var b bytes.Buffer
	for _, mem := range w.m.Mems {
		if mem.Macro {
			b.WriteString(w.macroInstance(mem))
		}
	}
	for _, in := range w.m.Insts {
		ci := w.info[in.Module]
		var conns []string
		if ci.UsesClock {
			conns = append(conns, "    .clk(clk)")
		}
		if ci.UsesReset {
			conns = append(conns, "    .rst(rst)")
		}
		for _, p := range in.Module.Ports {
			if p.Kind == hdl.Input {
				conns = append(conns, fmt.Sprintf("    .%s(%s)", p.Name, w.driverText(in.Inputs[p.Name], p.Type.Width)))
			} else {
				conns = append(conns, fmt.Sprintf("    .%s(%s)", p.Name, in.Outputs[p.Name].Name))
			}
		}
		fmt.Fprintf(&b, "  %s %s (\n%s\n  );\n", in.Module.Name, in.Name, strings.Join(conns, ",\n"))
	}
	return b.Bytes()
}

// operand returns a name or literal for x, declaring a temporary wire for
// an operator node the first time it is needed.
func (w *moduleWriter) operand(x *hdl.Expr) string { return w.operandUse(x, true) }

// operandUse is operand; mark says whether to mark every bit of the name
// as read (part marks only the bits it selects).
func (w *moduleWriter) operandUse(x *hdl.Expr, mark bool) string {
	if n, ok := w.names[x]; ok {
		if mark {
			w.usage.useAll(n)
		}
		return n
	}
	if c, ok := w.fold.value(x); ok {
		return literal(x.Type, c)
	}
	if s := w.driven[w.classOf(x)]; s != nil {
		// The value of a named wire or output: read it by that name.
		w.names[x] = s.Name
		if mark {
			w.usage.useAll(s.Name)
		}
		return s.Name
	}
	return w.temp(x, "_"+x.Op.String(), w.rhs(x), mark)
}

// temp declares a wire for x with the right-hand side text, or reuses the
// wire already declared with the same type and text.
func (w *moduleWriter) temp(x *hdl.Expr, prefix, text string, mark bool) string {
	name := w.declare(x.Type, prefix, text, mark)
	w.names[x] = name
	return name
}

// declare declares a wire of type t with the right-hand side text, or
// returns the wire already declared with the same type and text.
func (w *moduleWriter) declare(t hdl.Type, prefix, text string, mark bool) string {
	key := declType(t) + "= " + text
	name, ok := w.same[key]
	if !ok {
		w.temps++
		name = fmt.Sprintf("%s%d", prefix, w.temps)
		fmt.Fprintf(&w.logic, "  wire %s%s = %s;\n", declType(t), name, text)
		w.same[key] = name
		w.usage.track(name, t.Width)
	}
	if mark {
		w.usage.useAll(name)
	}
	return name
}

// part returns a name for x whose bits hi..lo are read, marking only those.
func (w *moduleWriter) part(x *hdl.Expr, hi, lo int) string {
	n := w.namedUse(x, false)
	w.usage.use(n, hi, lo)
	return n
}

// named is operand for places that select bits: a constant gets a wire of
// its own, since Verilog cannot select bits of a literal.
func (w *moduleWriter) named(x *hdl.Expr) string { return w.namedUse(x, true) }

func (w *moduleWriter) namedUse(x *hdl.Expr, mark bool) string {
	if n, ok := w.names[x]; ok {
		if mark {
			w.usage.useAll(n)
		}
		return n
	}
	if c, ok := w.fold.value(x); ok {
		return w.temp(x, "_const", literal(x.Type, c), mark)
	}
	return w.operandUse(x, mark)
}

var binaryOps = map[hdl.Op]string{
	hdl.OpAdd: "+", hdl.OpSub: "-", hdl.OpMul: "*", hdl.OpAnd: "&", hdl.OpOr: "|", hdl.OpXor: "^",
	hdl.OpEq: "==", hdl.OpNe: "!=", hdl.OpLt: "<", hdl.OpLe: "<=", hdl.OpGt: ">", hdl.OpGe: ">=",
}

// maxInlineLen bounds the text of an operand written out in place: a
// longer one gets a wire after all, so that a long chain of single-use
// operators reads as a few lines of moderate length rather than one.
const maxInlineLen = 100

// inlinable reports an operator node that may be written out where it is
// read instead of through a temporary wire: it has no name yet, is not a
// constant, and its class is read in one place only, or it is a select
// of a name, which reads as well as a name wherever it is written.
func (w *moduleWriter) inlinable(x *hdl.Expr) bool {
	if x.Op == hdl.OpSignal || x.Op == hdl.OpConst {
		return false
	}
	if _, named := w.names[x]; named {
		return false
	}
	if _, constant := w.fold.value(x); constant {
		return false
	}
	return w.isSelect(x) || w.readers[w.classOf(x)] == 1
}

// ownWidth reports whether Verilog evaluates operand i of x at the
// operand's own width, so that writing the operand out in place computes
// the same bits as reading a wire of its type. Operands whose width the
// context determines (of +, -, *, &, |, ^, ~, unary -, shifts, the arms of
// ?:, and the two sides of a comparison) qualify when they are exactly as
// wide as that context (hdl normalises them so, but it is checked here);
// self-determined ones (a condition, a shift amount, a part of a
// concatenation, a reduction's operand) always do. An operand whose bits
// are selected never does, Verilog-2005 cannot select bits of an
// expression, unless it is a select itself (selectFrom).
func (w *moduleWriter) ownWidth(x *hdl.Expr, i int) bool {
	a := x.Args[i]
	switch x.Op {
	case hdl.OpAdd, hdl.OpSub, hdl.OpMul, hdl.OpAnd, hdl.OpOr, hdl.OpXor,
		hdl.OpNot, hdl.OpNeg, hdl.OpShlConst, hdl.OpAsSInt, hdl.OpAsUInt:
		for _, b := range x.Args {
			if b.Type.Width != x.Type.Width {
				return false
			}
		}
		return true
	case hdl.OpEq, hdl.OpNe, hdl.OpLt, hdl.OpLe, hdl.OpGt, hdl.OpGe:
		return x.Args[0].Type.Width == x.Args[1].Type.Width
	case hdl.OpMux:
		return i == 0 || x.Args[1].Type.Width == x.Type.Width && x.Args[2].Type.Width == x.Type.Width
	case hdl.OpShl, hdl.OpShr:
		if w.guardedShift(x) {
			return false // the guarded form selects bits of both
		}
		return i == 1 || a.Type.Width == x.Type.Width
	case hdl.OpCat, hdl.OpRedAnd, hdl.OpRedOr, hdl.OpRedXor:
		return true
	case hdl.OpExt:
		return !a.Type.Signed || w.isSelect(a) // a sign-extension selects the sign bit
	}
	return false // Slice, Trunc: selectBits reads its operand
}

// primary reports a node whose spelling needs no parentheses as an
// operand: a select, a concatenation, a $signed or $unsigned call.
func primary(x *hdl.Expr) bool {
	switch x.Op {
	case hdl.OpSlice, hdl.OpTrunc, hdl.OpExt, hdl.OpCat, hdl.OpAsSInt, hdl.OpAsUInt:
		return true
	}
	return false
}

// arg spells operand i of x: written out in place when it is inlinable
// and Verilog evaluates it at its own width, with its own signedness
// ($signed or $unsigned pins the latter where the spelling alone would
// not), and by its name or literal otherwise. An operator written out is
// parenthesised unless bare is set (x's spelling brackets it already).
func (w *moduleWriter) arg(x *hdl.Expr, i int, bare bool) string {
	a := x.Args[i]
	if !w.ownWidth(x, i) || !w.inlinable(a) {
		return w.operand(a)
	}
	text := w.rhs(a)
	if len(text) > maxInlineLen {
		return w.temp(a, "_"+a.Op.String(), text, true)
	}
	switch signed := w.spelledSigned(a); {
	case signed && !a.Type.Signed:
		return "$unsigned(" + text + ")"
	case !signed && a.Type.Signed:
		return "$signed(" + text + ")"
	case bare || primary(a):
		return text
	}
	return "(" + text + ")"
}

// spelledSigned reports whether Verilog takes rhs(x) as signed. It is x's
// own signedness except where rhs writes a concatenation or a select (a
// sign-extension, a signed Trunc: Verilog takes them as unsigned), a whole
// 1-bit signed value for a bit of it, or the guarded form of a shift.
func (w *moduleWriter) spelledSigned(x *hdl.Expr) bool {
	switch x.Op {
	case hdl.OpExt, hdl.OpCat:
		return false
	case hdl.OpSlice, hdl.OpTrunc:
		hi, lo := x.Type.Width-1, 0
		if x.Op == hdl.OpSlice {
			hi, lo = x.Hi, x.Lo
		}
		from, _, _ := w.selectFrom(x.Args[0], hi, lo)
		return from.Type.Width == 1 && from.Type.Signed // a whole 1-bit value is spelled as its name
	case hdl.OpShl, hdl.OpShr:
		if w.guardedShift(x) {
			return false
		}
	}
	return x.Type.Signed
}

// rhs spells an operator node from its operands.
func (w *moduleWriter) rhs(x *hdl.Expr) string {
	if c, ok := w.fold.value(x); ok {
		return literal(x.Type, c)
	}
	a := func(i int) string { return w.arg(x, i, false) }
	if op, ok := binaryOps[x.Op]; ok {
		return fmt.Sprintf("%s %s %s", a(0), op, a(1))
	}
	switch x.Op {
	case hdl.OpSignal:
		w.usage.useAll(x.Sig.Name)
		return x.Sig.Name
	case hdl.OpConst:
		return literal(x.Type, x.Const)
	case hdl.OpNot:
		return "~" + a(0)
	case hdl.OpNeg:
		return "-" + a(0)
	case hdl.OpRedAnd:
		return "&" + a(0)
	case hdl.OpRedOr:
		return "|" + a(0)
	case hdl.OpRedXor:
		return "^" + a(0)
	case hdl.OpShlConst:
		return fmt.Sprintf("%s << %d", a(0), x.Amount)
	case hdl.OpShl, hdl.OpShr:
		return w.shift(x)
	case hdl.OpMux:
		return fmt.Sprintf("%s ? %s : %s", a(0), a(1), a(2))
	case hdl.OpCat:
		parts := make([]string, len(x.Args))
		for i := range x.Args {
			parts[i] = a(i)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case hdl.OpSlice:
		return w.selectBits(x.Args[0], x.Hi, x.Lo)
	case hdl.OpTrunc:
		return w.selectBits(x.Args[0], x.Type.Width-1, 0)
	case hdl.OpExt:
		arg := x.Args[0]
		n := x.Type.Width - arg.Type.Width
		name := a(0)
		fill := "1'b0"
		if arg.Type.Signed {
			fill = w.selectBits(arg, arg.Type.Width-1, arg.Type.Width-1)
		}
		return fmt.Sprintf("{{%d{%s}}, %s}", n, fill, name)
	case hdl.OpAsSInt:
		return fmt.Sprintf("$signed(%s)", w.arg(x, 0, true))
	case hdl.OpAsUInt:
		return fmt.Sprintf("$unsigned(%s)", w.arg(x, 0, true))
	}
	panic(fmt.Sprintf("verilog: no spelling for op %s", x.Op))
}

// isSelect reports a node spelled as a select of a name: a Slice or
// Trunc that is not a constant.
func (w *moduleWriter) isSelect(x *hdl.Expr) bool {
	if x.Op != hdl.OpSlice && x.Op != hdl.OpTrunc {
		return false
	}
	_, constant := w.fold.value(x)
	return !constant
}

// selectFrom returns the node and bit range that bits hi..lo of x are
// selected from: bits of a select are bits of what it selects from, so
// a select of a select is one select (Verilog-2005 has no select of a
// select, and needs no wire for the inner one).
func (w *moduleWriter) selectFrom(x *hdl.Expr, hi, lo int) (*hdl.Expr, int, int) {
	for w.isSelect(x) {
		if x.Op == hdl.OpSlice {
			hi, lo = hi+x.Lo, lo+x.Lo
		}
		x = x.Args[0]
	}
	return x, hi, lo
}

// selectBits spells bits hi..lo of x; a whole 1-bit value is its own name
// since a scalar has no bit range to select from.
func (w *moduleWriter) selectBits(x *hdl.Expr, hi, lo int) string {
	x, hi, lo = w.selectFrom(x, hi, lo)
	n := w.part(x, hi, lo)
	switch {
	case x.Type.Width == 1:
		return n
	case hi == lo:
		return fmt.Sprintf("%s[%d]", n, hi)
	}
	return fmt.Sprintf("%s[%d:%d]", n, hi, lo)
}

// guardedShift reports a shift by a signal amount with more bits than the
// width needs, which shift spells in two parts.
func (w *moduleWriter) guardedShift(x *hdl.Expr) bool {
	if _, ok := w.fold.value(x.Args[1]); ok {
		return false
	}
	return x.Args[1].Type.Width > hdl.ClogWidth(x.Type.Width)
}

// shift spells a shift by a signal amount. A constant amount is written
// as a small decimal (Verilator rejects literals of 2^32 and more there).
// An amount with more bits than the width needs is split: its high bits
// select the all-shifted-out value, its low bits shift, since Verilator
// 5.006 shifts a value of up to 64 bits by a wider-than-64-bit amount
// modulo the word size.
func (w *moduleWriter) shift(x *hdl.Expr) string {
	val, amt := x.Args[0], x.Args[1]
	width := x.Type.Width
	op := "<<"
	arith := x.Op == hdl.OpShr && val.Type.Signed
	switch {
	case arith:
		op = ">>>"
	case x.Op == hdl.OpShr:
		op = ">>"
	}
	if c, ok := w.fold.value(amt); ok {
		n := int64(width - 1) // larger amounts: all sign bits (logical ones were folded to 0)
		if c.IsInt64() && c.Int64() < n {
			n = c.Int64()
		}
		return fmt.Sprintf("%s %s %d", w.arg(x, 0, false), op, n)
	}
	low := hdl.ClogWidth(width)
	if !w.guardedShift(x) {
		return fmt.Sprintf("%s %s %s", w.arg(x, 0, false), op, w.arg(x, 1, false))
	}
	over := "|" + w.selectBits(amt, amt.Type.Width-1, low)
	inner := w.declare(x.Type, "_shift", fmt.Sprintf("%s %s %s", w.operand(val), op, w.selectBits(amt, low-1, 0)), true)
	fill := literal(hdl.UInt(width), bigInt(0))
	if arith {
		fill = fmt.Sprintf("{%d{%s}}", width, w.selectBits(val, width-1, width-1))
	}
	return fmt.Sprintf("%s ? %s : %s", over, fill, inner)
}
