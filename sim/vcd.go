package sim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hwgen/hwgen/hdl"
)

// vcd traces value changes. Only slots that carry a named signal are
// traced; aliased signals share one identifier code.
type vcd struct {
	w     *bufio.Writer
	ids   []string // per slot, "" when no named signal lives there
	chg   []bool
	list  []int32
	clk   uint64
	clkID string
	buf   []byte
	bits  int // traced bits, clk and rst included
	n     int // traced identifier codes
}

// VCDFilter narrows a trace to part of the hierarchy, for waveforms of a
// large design that would otherwise take hundreds of megabytes.
type VCDFilter struct {
	// Scope is the dotted instance path of the part to trace, below the
	// top ("npu.nec", "npu.nec.array" in the NPU's simulation top); the
	// top module's name may lead it. Empty: the whole design.
	Scope string
	// Depth is how many levels of instances below Scope are traced: 0
	// the scope's own signals only. Negative: every level.
	Depth int
}

// ErrVCDScope marks a VCDFilter scope that is not in the design.
var ErrVCDScope = errors.New("vcd scope not in the design")

type scopeError string

func (e scopeError) Error() string        { return string(e) }
func (e scopeError) Is(target error) bool { return target == ErrVCDScope }

// scopePaths are the dotted instance paths below the top ("" for the
// top) and each scope's depth.
func (s *Sim) scopePaths() ([]string, []int) {
	paths := make([]string, len(s.scopes))
	depth := make([]int, len(s.scopes))
	for i, sc := range s.scopes { // parents come first
		if sc.parent < 0 {
			continue
		}
		p := paths[sc.parent]
		if p != "" {
			p += "."
		}
		paths[i], depth[i] = p+sc.name, depth[sc.parent]+1
	}
	return paths, depth
}

// traced marks the scopes f selects; an unknown scope is an error naming
// the top's instances.
func (s *Sim) traced(f VCDFilter) ([]bool, error) {
	paths, depth := s.scopePaths()
	sel := f.Scope
	if top := s.scopes[0].name; sel == top {
		sel = ""
	} else if strings.HasPrefix(sel, top+".") {
		sel = sel[len(top)+1:]
	}
	base := -1
	for i, p := range paths {
		if p == sel {
			base = i
		}
	}
	if base < 0 {
		var kids []string
		for i, sc := range s.scopes {
			if sc.parent == 0 {
				kids = append(kids, paths[i])
			}
		}
		if len(kids) == 0 {
			return nil, scopeError(fmt.Sprintf("%q is not an instance of %s: it has none, so only the whole design is traced", f.Scope, s.scopes[0].name))
		}
		return nil, scopeError(fmt.Sprintf("%q is not an instance of %s: want a dotted path of instances, e.g. one of %s", f.Scope, s.scopes[0].name, strings.Join(kids, ", ")))
	}
	on := make([]bool, len(s.scopes))
	for i, p := range paths {
		in := sel == "" || p == sel || strings.HasPrefix(p, sel+".")
		on[i] = in && (f.Depth < 0 || depth[i]-depth[base] <= f.Depth)
	}
	return on, nil
}

// VCDTraced is the number of signals (identifier codes) and bits the
// current trace records, 0 without one: each cycle writes at most
// about bits plus the codes' length.
func (s *Sim) VCDTraced() (signals, bits int) {
	if s.tr == nil {
		return 0, 0
	}
	return s.tr.n, s.tr.bits
}

func (t *vcd) mark(id int32) {
	if t.ids[id] == "" || t.chg[id] {
		return
	}
	t.chg[id] = true
	t.list = append(t.list, id)
}

// vcdID is the n-th identifier code: base 94 over the printable ASCII.
func vcdID(n int) string {
	var b []byte
	for {
		b = append(b, byte('!'+n%94))
		n /= 94
		if n == 0 {
			return string(b)
		}
		n--
	}
}

// DumpVCD starts a VCD trace on w: a header with every named signal in a
// $scope per instance, the current values, then the changes of every Step
// (see the package documentation for the timing). Memories are not
// traced. Call FlushVCD or CloseVCD to finish; a new DumpVCD closes the
// previous trace.
//
// A filter (at most one) traces part of the hierarchy only; clk and rst
// are always traced.
func (s *Sim) DumpVCD(w io.Writer, filter ...VCDFilter) error {
	f := VCDFilter{Depth: -1}
	if len(filter) > 0 {
		f = filter[0]
	}
	on, err := s.traced(f)
	if err != nil {
		return err
	}
	if s.tr != nil {
		if err := s.CloseVCD(); err != nil {
			return err
		}
	}
	s.settle()
	t := &vcd{w: bufio.NewWriterSize(w, 1<<16), ids: make([]string, len(s.slots)), chg: make([]bool, len(s.slots))}
	n := 0
	next := func() string { n++; return vcdID(n - 1) }
	t.clkID = next()
	hasRst := len(s.inputs) > 0 && s.inputs[0].Name == "rst"
	t.bits = 1
	if hasRst {
		t.ids[s.rstSlot] = next()
		t.bits++
	}
	for _, g := range s.sigs {
		if on[g.scope] && t.ids[g.slot] == "" {
			t.ids[g.slot] = next()
			t.bits += g.typ.Width
		}
	}
	t.n = n
	// A scope is written when it or one of its descendants is traced.
	shown := make([]bool, len(s.scopes))
	shown[0] = true
	for i := range s.scopes {
		if on[i] {
			for j := int32(i); j >= 0 && !shown[j]; j = s.scopes[j].parent {
				shown[j] = true
			}
		}
	}
	if s.cycle > 0 {
		t.clk = 1 // just after a rising edge
	}

	b := t.w
	fmt.Fprintf(b, "$version hwgen sim $end\n$timescale 1ns $end\n")
	kids := make([][]int, len(s.scopes))
	for i, sc := range s.scopes {
		if sc.parent >= 0 && shown[i] {
			kids[sc.parent] = append(kids[sc.parent], i)
		}
	}
	bySc := make([][]*sigInfo, len(s.scopes))
	for i := range s.sigs {
		g := &s.sigs[i]
		if on[g.scope] {
			bySc[g.scope] = append(bySc[g.scope], g)
		}
	}
	var scope func(i int)
	scope = func(i int) {
		fmt.Fprintf(b, "$scope module %s $end\n", s.scopes[i].name)
		if i == 0 {
			fmt.Fprintf(b, "$var wire 1 %s clk $end\n", t.clkID)
			if hasRst {
				fmt.Fprintf(b, "$var wire 1 %s rst $end\n", t.ids[s.rstSlot])
			}
		}
		for _, g := range bySc[i] {
			kind := "wire"
			if g.kind == hdl.Reg {
				kind = "reg"
			}
			rng := ""
			if g.typ.Width > 1 {
				rng = fmt.Sprintf(" [%d:0]", g.typ.Width-1)
			}
			fmt.Fprintf(b, "$var %s %d %s %s%s $end\n", kind, g.typ.Width, t.ids[g.slot], g.name, rng)
		}
		for _, k := range kids[i] {
			scope(k)
		}
		fmt.Fprintf(b, "$upscope $end\n")
	}
	scope(0)
	fmt.Fprintf(b, "$enddefinitions $end\n#%d\n$dumpvars\n%d%s\n", 10*s.cycle, t.clk, t.clkID)
	for id, code := range t.ids {
		if code != "" {
			t.value(s, int32(id))
		}
	}
	b.WriteString("$end\n")
	s.tr = t
	return nil
}

// value writes the current value of a traced slot.
func (t *vcd) value(s *Sim, id int32) {
	a := s.words(id)
	code := t.ids[id]
	if s.slots[id].w == 1 {
		t.w.WriteByte(byte('0' + a[0]))
		t.w.WriteString(code)
		t.w.WriteByte('\n')
		return
	}
	b := append(t.buf[:0], 'b')
	top := len(a) - 1
	for top > 0 && a[top] == 0 {
		top--
	}
	b = strconv.AppendUint(b, a[top], 2)
	for i := top - 1; i >= 0; i-- {
		x := strconv.FormatUint(a[i], 2)
		for range 64 - len(x) {
			b = append(b, '0')
		}
		b = append(b, x...)
	}
	b = append(b, ' ')
	b = append(b, code...)
	b = append(b, '\n')
	t.buf = b
	t.w.Write(b)
}

// dump writes the changes since the last dump at time now.
func (t *vcd) dump(s *Sim, now uint64, clk uint64) {
	if len(t.list) == 0 && clk == t.clk {
		return
	}
	fmt.Fprintf(t.w, "#%d\n", now)
	if clk != t.clk {
		t.clk = clk
		fmt.Fprintf(t.w, "%d%s\n", clk, t.clkID)
	}
	for _, id := range t.list {
		t.chg[id] = false
		t.value(s, id)
	}
	t.list = t.list[:0]
}

// FlushVCD writes buffered trace output to the writer.
func (s *Sim) FlushVCD() error {
	if s.tr == nil {
		return nil
	}
	return s.tr.w.Flush()
}

// CloseVCD ends the trace: pending changes and the falling clock edge at
// the current cycle's 10n+5, then a flush. Tracing stops.
func (s *Sim) CloseVCD() error {
	if s.tr == nil {
		return nil
	}
	s.settle()
	s.tr.dump(s, 10*s.cycle+5, 0)
	err := s.tr.w.Flush()
	s.tr = nil
	return err
}
