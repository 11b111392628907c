package hdl

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Module is a hardware module under construction: ports, wires, registers,
// memories and instances of other modules. A module is a template: it can
// be instantiated any number of times.
type Module struct {
	Name    string
	Pos     string
	Ports   []*Signal // inputs and outputs in declaration order (clk and rst are implicit)
	Signals []*Signal // every named signal in declaration order, ports included
	Mems    []*Memory
	Insts   []*Instance

	names map[string]string // name -> where it was declared
	errs  []error
}

// SignalKind tells what drives a signal.
type SignalKind int

const (
	Input   SignalKind = iota // driven from outside
	Output                    // driven by Set, visible outside
	Wire                      // driven by Set, internal
	Reg                       // next value committed at the clock edge
	MemRead                   // data of a synchronous memory read port
	InstOut                   // output port of an instance
)

func (k SignalKind) String() string {
	return [...]string{"input", "output", "wire", "reg", "memory read data", "instance output"}[k]
}

// Signal is a named value of a module. It is also a Value, so it can be
// used directly as an operand.
type Signal struct {
	Expr
	Name string
	Kind SignalKind

	Driver *Expr // Output, Wire: set by Set

	Next   *Expr    // Reg: value at the next edge (nil: holds)
	Enable *Expr    // Reg: when 0 the register holds (nil: always enabled)
	Init   *big.Int // Reg: reset value bits (nil: no reset, see RegNoReset)

	ReadPort *ReadPort // MemRead

	Inst *Instance // InstOut
	Port string    // InstOut: the child's port name

	setPos string
}

// Path is module.signal, used in messages.
func (s *Signal) Path() string { return s.mod.Name + "." + s.Name }

// Memory is a depth x width array with synchronous write and read ports.
// Writes in one cycle are applied in port order (a later port wins on the
// same address); a read in the same cycle as a write to its address returns
// the old data.
type Memory struct {
	Name     string
	Depth    int
	Type     Type // element type
	AddrType Type // UInt(ClogWidth(Depth))
	Writes   []*WritePort
	Reads    []*ReadPort
	Pos      string
	// Macro asks the emitter for an instance of a black-box SRAM macro
	// (plus a behavioural model of it) instead of an inferable array, so
	// a foundry macro can be swapped in. Simulation is unchanged.
	Macro bool
	mod   *Module
}

// MacroArrayName is the name of the array inside the behavioural model of
// every SRAM macro. A macro memory may not be called that: its instance
// takes the memory's name, and Verilator -Wall (VARHIDDEN) rejects an
// instance named like a signal declared inside it.
const MacroArrayName = "mem"

// MaxMacroReads is the most read ports an SRAM macro has (a 2R1W macro,
// or a duplicated array behind one write port).
const MaxMacroReads = 2

// AsMacro emits the memory as an SRAM macro instance. A macro has one
// write port (optionally masked) and at most MaxMacroReads read ports.
func (mem *Memory) AsMacro() *Memory {
	mem.Macro = true
	return mem
}

// MacroName is the module name of the macro for mem: hwgen_sram_<depth>x<width>,
// with suffix _m when the write port has a bit mask and _r2 when it has
// two read ports.
func (mem *Memory) MacroName() string {
	name := fmt.Sprintf("hwgen_sram_%dx%d", mem.Depth, mem.Type.Width)
	if len(mem.Writes) > 0 && mem.Writes[0].Mask != nil {
		name += "_m"
	}
	if len(mem.Reads) > 1 {
		name += fmt.Sprintf("_r%d", len(mem.Reads))
	}
	return name
}

// WritePort writes Data to Addr at the clock edge when En is 1; with a Mask
// only the bits set in Mask are written.
type WritePort struct {
	Addr, Data, En, Mask *Expr
	Pos                  string
}

// ReadPort reads Addr at the clock edge; Data holds the word from the next
// cycle on. With En, Data holds its value while En is 0.
type ReadPort struct {
	Addr, En *Expr
	Data     *Signal
	Memory   *Memory
	Pos      string
}

// Instance is one use of a child module inside a parent.
type Instance struct {
	Name    string
	Module  *Module
	Inputs  map[string]*Expr   // child input name -> driver, typed exactly as the port
	Outputs map[string]*Signal // child output name -> signal in the parent
	Pos     string
	parent  *Module
	inPos   map[string]string
}

var identRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// NewModule starts a module. For parameterized generators derive the name
// from the parameters (see Name) so identical parameterizations share one
// module and different ones never collide.
func NewModule(name string) *Module {
	m := &Module{Name: name, Pos: callerPos(), names: map[string]string{}}
	if !identRE.MatchString(name) || verilogKeywords[name] {
		m.errorf(m.Pos, "", "module name %q is not a plain identifier (letters, digits, _; not a Verilog keyword)", name)
	}
	return m
}

// Name derives a deterministic module name from a base and parameters:
// Name("pe", SInt(8), SInt(32)) is "pe_s8_s32".
func Name(base string, params ...any) string {
	parts := []string{base}
	for _, p := range params {
		switch v := p.(type) {
		case Type:
			parts = append(parts, v.Short())
		case bool:
			if v {
				parts = append(parts, "t")
			} else {
				parts = append(parts, "f")
			}
		default:
			parts = append(parts, strings.ReplaceAll(fmt.Sprint(v), "-", "m"))
		}
	}
	return strings.Join(parts, "_")
}

func (m *Module) errorf(pos, name, format string, args ...any) {
	path := m.Name
	if name != "" {
		path += "." + name
	}
	m.errs = append(m.errs, &Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (m *Module) declare(pos, name string, kind SignalKind, t Type) *Signal {
	s := &Signal{Name: name, Kind: kind}
	s.Expr = Expr{Op: OpSignal, Type: t, Pos: pos, mod: m}
	s.Sig = s
	switch {
	case !identRE.MatchString(name) || verilogKeywords[name]:
		m.errorf(pos, name, "name %q is not a plain identifier (start with a letter; letters, digits, _; not a Verilog keyword)", name)
	case name == "clk" || name == "rst" || strings.Contains(name, "unused"):
		m.errorf(pos, name, "name %q is reserved (clk and rst are implicit; *unused* marks lint waivers)", name)
	default:
		if prev, dup := m.names[name]; dup {
			m.errorf(pos, name, "name %q already declared at %s", name, prev)
		}
		m.names[name] = pos
	}
	if !t.valid() {
		m.errorf(pos, name, "width %d outside 1..%d", t.Width, MaxWidth)
		s.Type = UInt(1)
	}
	m.Signals = append(m.Signals, s)
	return s
}

// Input declares an input port.
func (m *Module) Input(name string, t Type) *Signal {
	s := m.declare(callerPos(), name, Input, t)
	m.Ports = append(m.Ports, s)
	return s
}

// Output declares an output port; drive it with Set.
func (m *Module) Output(name string, t Type) *Signal {
	s := m.declare(callerPos(), name, Output, t)
	m.Ports = append(m.Ports, s)
	return s
}

// Wire declares an internal named signal; drive it with Set.
func (m *Module) Wire(name string, t Type) *Signal {
	return m.declare(callerPos(), name, Wire, t)
}

// Reg declares a register that takes init on reset. Give it a next value
// with SetNext and optionally an enable with SetEnable.
func (m *Module) Reg(name string, t Type, init int64) *Signal {
	return m.RegBig(name, t, big.NewInt(init))
}

// RegNoReset declares a register that rst does not touch: it keeps
// clocking its next value while rst is high and powers up unknown (0 in
// the Go simulator and in hwgen's Verilator builds, X in a four-state
// simulator). It is for datapath registers whose value is never used
// before a valid one is written: on an ASIC the reset costs a gate per bit.
func (m *Module) RegNoReset(name string, t Type) *Signal {
	return m.declare(callerPos(), name, Reg, t)
}

// DataReg is a datapath register: reset to 0 when reset is true, else
// without a reset (RegNoReset), as a block's configuration chooses.
func (m *Module) DataReg(name string, t Type, reset bool) *Signal {
	s := m.declare(callerPos(), name, Reg, t)
	if reset {
		s.Init = s.Type.Bits(new(big.Int)) // 0 fits every type
	}
	return s
}

// RegBig is Reg with a reset value of any width.
func (m *Module) RegBig(name string, t Type, init *big.Int) *Signal {
	pos := callerPos()
	s := m.declare(pos, name, Reg, t)
	if !s.Type.Fits(init) {
		m.errorf(pos, name, "reset value %s does not fit %s", init, t)
	}
	s.Init = s.Type.Bits(init)
	return s
}

// Set drives an output or wire. The value must share the signal's
// signedness and be no wider (narrower values are extended).
func (s *Signal) Set(v Value) {
	pos := callerPos()
	if s.Kind != Output && s.Kind != Wire {
		s.mod.errorf(pos, s.Name, "cannot Set a %s; only outputs and wires are driven by Set", s.Kind)
		return
	}
	if s.Driver != nil {
		s.mod.errorf(pos, s.Name, "multiple drivers: already driven at %s", s.setPos)
		return
	}
	s.Driver, s.setPos = s.mod.fit(pos, s.Name, v.node(), s.Type, "assign")
}

// SetNext gives a register its next value.
func (s *Signal) SetNext(v Value) {
	pos := callerPos()
	if s.Kind != Reg {
		s.mod.errorf(pos, s.Name, "SetNext on a %s; only registers have a next value", s.Kind)
		return
	}
	if s.Next != nil {
		s.mod.errorf(pos, s.Name, "multiple drivers: next value already set at %s", s.setPos)
		return
	}
	s.Next, s.setPos = s.mod.fit(pos, s.Name, v.node(), s.Type, "assign")
}

// SetEnable makes a register hold its value while en is 0.
func (s *Signal) SetEnable(en Value) {
	pos := callerPos()
	if s.Kind != Reg {
		s.mod.errorf(pos, s.Name, "SetEnable on a %s; only registers have an enable", s.Kind)
		return
	}
	if s.Enable != nil {
		s.mod.errorf(pos, s.Name, "enable already set")
		return
	}
	s.Enable, _ = s.mod.fit(pos, s.Name+" enable", en.node(), Bool, "use as enable")
}

// fit checks that e can drive a place of type t in module m and returns it
// extended to t.
func (m *Module) fit(pos, name string, e *Expr, t Type, what string) (*Expr, string) {
	if e.mod != nil && e.mod != m {
		m.errorf(pos, name, "value comes from module %s; pass it through a port", e.mod.Name)
		return e, pos
	}
	if len(e.err) > 0 {
		m.errs = append(m.errs, withPath(e.err, m.Name+"."+name)...)
		e.err = nil
	}
	switch {
	case e.Type.Signed != t.Signed:
		m.errorf(pos, name, "width mismatch: cannot %s %s to %s (signedness differs; use AsSInt/AsUInt)", what, e.Type, t)
	case e.Type.Width > t.Width:
		m.errorf(pos, name, "width mismatch: cannot %s %s to %s; narrow it explicitly with Trunc or Slice", what, e.Type, t)
	case e.Type.Width < t.Width:
		x := newNode(pos, OpExt, t, e)
		x.mod = m
		return x, pos
	}
	return e, pos
}

// Memory declares a depth x t memory.
func (m *Module) Memory(name string, depth int, t Type) *Memory {
	pos := callerPos()
	mem := &Memory{Name: name, Depth: depth, Type: t, AddrType: UInt(ClogWidth(depth)), Pos: pos, mod: m}
	if depth < 1 || depth > 1<<24 {
		m.errorf(pos, name, "memory depth %d outside 1..%d", depth, 1<<24)
		mem.Depth, mem.AddrType = 1, UInt(1)
	}
	if !t.valid() {
		m.errorf(pos, name, "memory width %d outside 1..%d", t.Width, MaxWidth)
		mem.Type = UInt(1)
	}
	if !identRE.MatchString(name) || verilogKeywords[name] {
		m.errorf(pos, name, "memory name %q is not a plain identifier", name)
	} else if name == "clk" || name == "rst" {
		m.errorf(pos, name, "name %q is reserved (clk and rst are implicit)", name)
	} else if prev, dup := m.names[name]; dup {
		m.errorf(pos, name, "name %q already declared at %s", name, prev)
	}
	m.names[name] = pos
	m.Mems = append(m.Mems, mem)
	return mem
}

// Write adds a write port: at the clock edge, when en is 1, mem[addr] = data.
func (mem *Memory) Write(addr, data, en Value) *WritePort {
	return mem.write(callerPos(), addr, data, en, nil)
}

// WriteMasked adds a write port that writes only the bits set in mask.
func (mem *Memory) WriteMasked(addr, data, en, mask Value) *WritePort {
	return mem.write(callerPos(), addr, data, en, mask)
}

func (mem *Memory) write(pos string, addr, data, en, mask Value) *WritePort {
	m := mem.mod
	p := &WritePort{Pos: pos}
	p.Addr, _ = m.fit(pos, mem.Name+" write address", addr.node(), mem.AddrType, "use as address")
	p.Data, _ = m.fit(pos, mem.Name+" write data", data.node(), mem.Type, "write")
	p.En, _ = m.fit(pos, mem.Name+" write enable", en.node(), Bool, "use as enable")
	if mask != nil {
		p.Mask, _ = m.fit(pos, mem.Name+" write mask", mask.node(), UInt(mem.Type.Width), "use as mask")
	}
	mem.Writes = append(mem.Writes, p)
	return p
}

// Read adds a synchronous read port named name: the returned signal holds
// mem[addr] from the cycle after addr is presented.
func (mem *Memory) Read(name string, addr Value) *Signal {
	return mem.read(callerPos(), name, addr, nil)
}

// ReadEnabled is Read with an enable: the data holds while en is 0.
func (mem *Memory) ReadEnabled(name string, addr, en Value) *Signal {
	return mem.read(callerPos(), name, addr, en)
}

func (mem *Memory) read(pos, name string, addr, en Value) *Signal {
	m := mem.mod
	p := &ReadPort{Pos: pos, Memory: mem}
	p.Addr, _ = m.fit(pos, name+" address", addr.node(), mem.AddrType, "use as address")
	if en != nil {
		p.En, _ = m.fit(pos, name+" enable", en.node(), Bool, "use as enable")
	}
	p.Data = m.declare(pos, name, MemRead, mem.Type)
	p.Data.ReadPort = p
	mem.Reads = append(mem.Reads, p)
	return p.Data
}

// Instance places child inside m. Connect every child input with Connect;
// each child output appears as the signal Out(port), named name_port.
func (m *Module) Instance(name string, child *Module) *Instance {
	pos := callerPos()
	in := &Instance{Name: name, Module: child, Inputs: map[string]*Expr{}, Outputs: map[string]*Signal{},
		Pos: pos, parent: m, inPos: map[string]string{}}
	if child == m {
		m.errorf(pos, name, "module %s instantiates itself", m.Name)
		return in
	}
	if !identRE.MatchString(name) || verilogKeywords[name] {
		m.errorf(pos, name, "instance name %q is not a plain identifier", name)
	} else if name == "clk" || name == "rst" {
		m.errorf(pos, name, "name %q is reserved (clk and rst are implicit)", name)
	} else if prev, dup := m.names[name]; dup {
		m.errorf(pos, name, "name %q already declared at %s", name, prev)
	}
	m.names[name] = pos
	for _, p := range child.Ports {
		if p.Kind == Output {
			s := m.declare(pos, name+"_"+p.Name, InstOut, p.Type)
			s.Inst, s.Port = in, p.Name
			in.Outputs[p.Name] = s
		}
	}
	m.Insts = append(m.Insts, in)
	return in
}

// Connect drives the child's input port from v.
func (in *Instance) Connect(port string, v Value) *Instance {
	pos := callerPos()
	m := in.parent
	p := in.Module.port(port)
	switch {
	case p == nil || p.Kind != Input:
		m.errorf(pos, in.Name+"."+port, "module %s has no input port %q (inputs: %s)", in.Module.Name, port, in.Module.portNames(Input))
	case in.Inputs[port] != nil:
		m.errorf(pos, in.Name+"."+port, "multiple drivers: port already connected at %s", in.inPos[port])
	default:
		in.Inputs[port], _ = m.fit(pos, in.Name+"."+port, v.node(), p.Type, "connect")
		in.inPos[port] = pos
	}
	return in
}

// Out is the parent-side signal of the child's output port.
func (in *Instance) Out(port string) *Signal {
	if s := in.Outputs[port]; s != nil {
		return s
	}
	pos := callerPos()
	in.parent.errorf(pos, in.Name+"."+port, "module %s has no output port %q (outputs: %s)", in.Module.Name, port, in.Module.portNames(Output))
	s := &Signal{Name: in.Name + "_" + port, Kind: InstOut}
	s.Expr = Expr{Op: OpSignal, Type: Bool, Pos: pos, mod: in.parent}
	s.Sig = s
	return s
}

func (m *Module) port(name string) *Signal {
	for _, p := range m.Ports {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Port returns the port called name, or nil.
func (m *Module) Port(name string) *Signal { return m.port(name) }

func (m *Module) portNames(k SignalKind) string {
	var names []string
	for _, p := range m.Ports {
		if p.Kind == k {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
