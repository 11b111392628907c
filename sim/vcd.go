package sim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

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
func (s *Sim) DumpVCD(w io.Writer) error {
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
	if hasRst {
		t.ids[s.rstSlot] = next()
	}
	for _, g := range s.sigs {
		if t.ids[g.slot] == "" {
			t.ids[g.slot] = next()
		}
	}
	if s.cycle > 0 {
		t.clk = 1 // just after a rising edge
	}

	b := t.w
	fmt.Fprintf(b, "$version hwgen sim $end\n$timescale 1ns $end\n")
	kids := make([][]int, len(s.scopes))
	for i, sc := range s.scopes {
		if sc.parent >= 0 {
			kids[sc.parent] = append(kids[sc.parent], i)
		}
	}
	bySc := make([][]*sigInfo, len(s.scopes))
	for i := range s.sigs {
		g := &s.sigs[i]
		bySc[g.scope] = append(bySc[g.scope], g)
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
