package hdl

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Design is an elaborated, checked design: the top module and every module
// it uses, each once, children before parents.
type Design struct {
	Top     *Module
	Modules []*Module
	Info    map[*Module]*ModuleInfo
}

// ModuleInfo is what elaboration derived about a module.
type ModuleInfo struct {
	UsesClock bool // the module or a descendant has a register or memory
	UsesReset bool // the module or a descendant has a register with a reset value
	// CombDeps[o] lists the indices (into Inputs) of the inputs that output
	// port o depends on combinationally.
	CombDeps    map[string][]int
	Inputs      []*Signal
	Fingerprint string
}

// Elaborate checks the design rooted at top and returns it ready for the
// emitter and the simulator. All problems found are returned together.
func Elaborate(top *Module) (*Design, error) {
	e := &elab{byName: map[string]*Module{}, info: map[*Module]*ModuleInfo{}, visiting: map[*Module]bool{}}
	e.visit(top, top.Pos)
	if len(e.errs) == 0 {
		for _, m := range e.order {
			e.checkModule(m)
		}
	}
	if len(e.errs) > 0 {
		return nil, errors.Join(e.errs...)
	}
	return &Design{Top: top, Modules: e.order, Info: e.info}, nil
}

// MustElaborate is Elaborate for built-in designs known to be correct.
func MustElaborate(top *Module) *Design {
	d, err := Elaborate(top)
	if err != nil {
		panic(err)
	}
	return d
}

type elab struct {
	order    []*Module
	byName   map[string]*Module
	info     map[*Module]*ModuleInfo
	visiting map[*Module]bool
	errs     []error
}

// visit walks the hierarchy depth first, deduplicating modules: two
// module objects with the same name and the same structure become one;
// the same name with different structure is an error.
func (e *elab) visit(m *Module, pos string) *Module {
	if e.visiting[m] {
		e.errs = append(e.errs, &Error{Pos: pos, Path: m.Name, Msg: "module instantiates itself through its children"})
		return m
	}
	if _, done := e.info[m]; done {
		return m
	}
	e.visiting[m] = true
	for _, in := range m.Insts {
		in.Module = e.visit(in.Module, in.Pos)
	}
	delete(e.visiting, m)
	e.errs = append(e.errs, m.errs...)
	fp := fingerprint(m)
	if prev := e.byName[m.Name]; prev != nil {
		if e.info[prev].Fingerprint == fp {
			return prev
		}
		e.errs = append(e.errs, &Error{Pos: m.Pos, Path: m.Name, Msg: fmt.Sprintf(
			"two different modules are named %s (the other is built at %s); put the differing parameters into the name (see hdl.Name)", m.Name, prev.Pos)})
		return m
	}
	e.byName[m.Name] = m
	e.info[m] = &ModuleInfo{Fingerprint: fp}
	e.order = append(e.order, m)
	return m
}

func (e *elab) fail(pos, path, format string, args ...any) {
	e.errs = append(e.errs, &Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// checkModule finds undriven signals, unconnected ports and combinational
// loops, and summarises the module for its parents.
func (e *elab) checkModule(m *Module) {
	inf := e.info[m]
	for _, s := range m.Signals {
		if (s.Kind == Output || s.Kind == Wire) && s.Driver == nil {
			e.fail(s.Pos, s.Path(), "undriven %s: give it a value with Set", s.Kind)
		}
		if s.Kind == Input {
			inf.Inputs = append(inf.Inputs, s)
		}
		if s.Kind == Reg {
			inf.UsesClock = true
			inf.UsesReset = inf.UsesReset || s.Init != nil
			if s.Init == nil && s.Next == nil {
				e.fail(s.Pos, s.Path(), "register without reset and without a next value never holds a value: give it one with SetNext, or a reset value with Reg")
			}
		}
	}
	if len(m.Mems) > 0 {
		inf.UsesClock = true
	}
	for _, mem := range m.Mems {
		if mem.Macro && (len(mem.Writes) > 1 || len(mem.Reads) > MaxMacroReads) {
			e.fail(mem.Pos, m.Name+"."+mem.Name, "an SRAM macro has one write port and at most %d read ports; this memory has %d and %d", MaxMacroReads, len(mem.Writes), len(mem.Reads))
		}
		if mem.Macro && mem.Name == MacroArrayName {
			e.fail(mem.Pos, m.Name+"."+mem.Name, "an SRAM macro memory may not be named %q: that is the array inside the macro model, and Verilator -Wall rejects the instance hiding it; rename the memory", MacroArrayName)
		}
	}
	for _, in := range m.Insts {
		ci := e.info[in.Module]
		inf.UsesClock = inf.UsesClock || ci.UsesClock
		inf.UsesReset = inf.UsesReset || ci.UsesReset
		var missing []string
		for _, p := range in.Module.Ports {
			if p.Kind == Input && in.Inputs[p.Name] == nil {
				missing = append(missing, p.Name)
			}
		}
		if len(missing) > 0 {
			e.fail(in.Pos, m.Name+"."+in.Name, "unconnected input port(s) of %s: %s", in.Module.Name, strings.Join(missing, ", "))
		}
	}
	e.combCheck(m, inf)
}

// combCheck looks for combinational loops and computes, for every output,
// the inputs it depends on without passing a register.
func (e *elab) combCheck(m *Module, inf *ModuleInfo) {
	inputIndex := map[*Signal]int{}
	for i, s := range inf.Inputs {
		inputIndex[s] = i
	}
	const (
		white = 0
		grey  = 1
		black = 2
	)
	color := map[*Expr]int{}
	deps := map[*Expr]map[int]bool{}
	var stack []*Expr
	reported := false

	var walk func(x *Expr) map[int]bool
	children := func(x *Expr) []*Expr {
		if x.Op != OpSignal {
			return x.Args
		}
		s := x.Sig
		switch s.Kind {
		case Output, Wire:
			if s.Driver != nil {
				return []*Expr{s.Driver}
			}
		case InstOut:
			ci := e.info[s.Inst.Module]
			if ci == nil {
				return nil
			}
			var out []*Expr
			for _, idx := range ci.CombDeps[s.Port] {
				if d := s.Inst.Inputs[ci.Inputs[idx].Name]; d != nil {
					out = append(out, d)
				}
			}
			return out
		}
		return nil // inputs, registers and memory data are not combinational
	}
	walk = func(x *Expr) map[int]bool {
		switch color[x] {
		case black:
			return deps[x]
		case grey:
			if !reported {
				reported = true
				e.fail(x.Pos, m.Name, "combinational loop: %s", loopText(stack, x))
			}
			return nil
		}
		color[x] = grey
		stack = append(stack, x)
		d := map[int]bool{}
		if x.Op == OpSignal && x.Sig.Kind == Input {
			d[inputIndex[x.Sig]] = true
		}
		for _, c := range children(x) {
			for k := range walk(c) {
				d[k] = true
			}
		}
		stack = stack[:len(stack)-1]
		color[x] = black
		deps[x] = d
		return d
	}
	inf.CombDeps = map[string][]int{}
	for _, s := range m.Signals {
		d := walk(&s.Expr)
		if s.Kind == Output {
			var idx []int
			for k := range d {
				idx = append(idx, k)
			}
			sort.Ints(idx)
			inf.CombDeps[s.Name] = idx
		}
	}
	// Register inputs, memory ports and instance inputs are roots too.
	var roots []*Expr
	for _, s := range m.Signals {
		if s.Kind == Reg {
			roots = append(roots, s.Next, s.Enable)
		}
	}
	for _, mem := range m.Mems {
		for _, w := range mem.Writes {
			roots = append(roots, w.Addr, w.Data, w.En, w.Mask)
		}
		for _, r := range mem.Reads {
			roots = append(roots, r.Addr, r.En)
		}
	}
	for _, in := range m.Insts {
		for _, p := range in.Module.Ports {
			roots = append(roots, in.Inputs[p.Name])
		}
	}
	for _, r := range roots {
		if r != nil {
			walk(r)
		}
	}
}

// loopText prints the named signals on the loop, closing it.
func loopText(stack []*Expr, back *Expr) string {
	start := 0
	for i, x := range stack {
		if x == back {
			start = i
		}
	}
	var names []string
	for _, x := range stack[start:] {
		if x.Op == OpSignal {
			names = append(names, fmt.Sprintf("%s (%s)", x.Sig.Name, x.Pos))
		}
	}
	if back.Op == OpSignal {
		names = append(names, back.Sig.Name)
	}
	if len(names) == 0 {
		return "through unnamed expressions built at " + back.Pos
	}
	return strings.Join(names, " -> ")
}

// fingerprint is a digest of everything that makes a module what it is
// (but not where it was built), used to merge identical parameterizations.
func fingerprint(m *Module) string {
	var b strings.Builder
	ids := map[*Expr]int{}
	var expr func(x *Expr) int
	expr = func(x *Expr) int {
		if x == nil {
			return -1
		}
		if id, ok := ids[x]; ok {
			return id
		}
		var args []int
		if x.Op != OpSignal {
			for _, a := range x.Args {
				args = append(args, expr(a))
			}
		}
		id := len(ids)
		ids[x] = id
		switch x.Op {
		case OpSignal:
			fmt.Fprintf(&b, "n%d=sig %s\n", id, x.Sig.Name)
		case OpConst:
			fmt.Fprintf(&b, "n%d=const %s %x\n", id, x.Type, x.Const)
		default:
			fmt.Fprintf(&b, "n%d=%s %s %v %d %d %d\n", id, x.Op, x.Type, args, x.Hi, x.Lo, x.Amount)
		}
		return id
	}
	fmt.Fprintf(&b, "module %s\n", m.Name)
	for _, s := range m.Signals {
		fmt.Fprintf(&b, "signal %s %d %s\n", s.Name, s.Kind, s.Type)
	}
	for _, s := range m.Signals {
		switch s.Kind {
		case Output, Wire:
			fmt.Fprintf(&b, "drive %s %d\n", s.Name, expr(s.Driver))
		case Reg:
			fmt.Fprintf(&b, "reg %s %d %d %x\n", s.Name, expr(s.Next), expr(s.Enable), s.Init)
		}
	}
	for _, mem := range m.Mems {
		fmt.Fprintf(&b, "mem %s %d %s %v\n", mem.Name, mem.Depth, mem.Type, mem.Macro)
		for _, w := range mem.Writes {
			fmt.Fprintf(&b, " w %d %d %d %d\n", expr(w.Addr), expr(w.Data), expr(w.En), expr(w.Mask))
		}
		for _, r := range mem.Reads {
			fmt.Fprintf(&b, " r %s %d %d\n", r.Data.Name, expr(r.Addr), expr(r.En))
		}
	}
	for _, in := range m.Insts {
		fmt.Fprintf(&b, "inst %s %s", in.Name, in.Module.Name)
		for _, p := range in.Module.Ports {
			if p.Kind == Input {
				fmt.Fprintf(&b, " %s=%d", p.Name, expr(in.Inputs[p.Name]))
			}
		}
		b.WriteString("\n")
	}
	sum := sha256.Sum256([]byte(b.String()))
	return fmt.Sprintf("%x", sum[:16])
}
