package verify

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/hwgen/hwgen/hdl"
)

// WidthClass groups widths by how simulators represent them: one bit,
// within a 64-bit word, exactly a word, two words, three or more words.
type WidthClass int

const (
	W1 WidthClass = iota
	W2to63
	W64
	W65to128
	W129to200
	WOver200
	numWidthClasses
)

var widthClassNames = [...]string{"1", "2-63", "64", "65-128", "129-200", ">200"}

func (c WidthClass) String() string {
	if c >= 0 && c < numWidthClasses {
		return widthClassNames[c]
	}
	return fmt.Sprintf("class%d", int(c))
}

// ClassOf is the width class of w.
func ClassOf(w int) WidthClass {
	switch {
	case w <= 1:
		return W1
	case w < 64:
		return W2to63
	case w == 64:
		return W64
	case w <= 128:
		return W65to128
	case w <= 200:
		return W129to200
	}
	return WOver200
}

// OpCell is one cell of the coverage table. The width class is that of the
// widest value the node touches (its result or a data operand; the select
// of a mux and the amount of a shift do not count), and the signedness is
// that of its data operand (for a mux, of the arms; for a constant or a
// signal, its own): so "shr, signed" is the arithmetic shift, "lt, signed"
// the signed comparison and "ext, signed" the sign extension.
type OpCell struct {
	Op     hdl.Op
	Class  WidthClass
	Signed bool
}

// Coverage tallies what a fuzz campaign exercised.
type Coverage struct {
	Designs int // designs cross-checked
	Cycles  int // cycles cross-checked, summed over designs
	Nodes   int // operator nodes tallied (each module once, however often instanced)
	// Folded counts nodes whose operands are all constant: both simulators
	// fold them, so they are not tallied in Ops.
	Folded int
	Ops    map[OpCell]int
	// Widths counts nodes and signals by exact width, for the boundary
	// widths only (1, 63, 64, 65, 128, 129, 200).
	Widths map[int]int
	// Constructs counts the DSL calls and structures the generator used:
	// "op shl", "Shl (growing)", "ShrConst (n >= width)", "masked memory
	// write", "register with enable", "instance" ...
	Constructs map[string]int
	// Avoided counts the random choices redirected because FuzzOptions.Avoid
	// named the construct they would have built.
	Avoided map[Construct]int
}

// NewCoverage returns an empty tally.
func NewCoverage() *Coverage {
	return &Coverage{Ops: map[OpCell]int{}, Widths: map[int]int{}, Constructs: map[string]int{}, Avoided: map[Construct]int{}}
}

// AllOps lists every hdl.Op, in order.
func AllOps() []hdl.Op {
	var ops []hdl.Op
	for o := hdl.Op(0); o.String() != fmt.Sprintf("op%d", int(o)); o++ {
		ops = append(ops, o)
	}
	return ops
}

var boundaryWidths = map[int]bool{1: true, 63: true, 64: true, 65: true, 128: true, 129: true, 200: true}

// AddDesign tallies the operator nodes of every module of d.
func (c *Coverage) AddDesign(d *hdl.Design) {
	for _, m := range d.Modules {
		c.addModule(m)
	}
}

func (c *Coverage) addModule(m *hdl.Module) {
	constOnly := map[*hdl.Expr]bool{}
	seen := map[*hdl.Expr]bool{}
	var visit func(x *hdl.Expr) bool
	visit = func(x *hdl.Expr) bool {
		if x == nil {
			return false
		}
		if seen[x] {
			return constOnly[x]
		}
		seen[x] = true
		k := x.Op == hdl.OpConst
		if x.Op != hdl.OpSignal && x.Op != hdl.OpConst {
			k = true
			for _, a := range x.Args {
				if !visit(a) {
					k = false
				}
			}
		}
		constOnly[x] = k
		if k && x.Op != hdl.OpConst {
			c.Folded++
			return k
		}
		c.Nodes++
		c.Ops[cellOf(x)]++
		if boundaryWidths[x.Width()] {
			c.Widths[x.Width()]++
		}
		return k
	}
	eachRoot(m, func(x *hdl.Expr) { visit(x) })
}

// eachRoot calls f on every expression tree hanging off m: signals,
// memory ports and instance inputs (in port order), nil ones included.
func eachRoot(m *hdl.Module, f func(*hdl.Expr)) {
	for _, s := range m.Signals {
		f(&s.Expr)
		f(s.Driver)
		f(s.Next)
		f(s.Enable)
	}
	for _, mem := range m.Mems {
		for _, w := range mem.Writes {
			f(w.Addr)
			f(w.Data)
			f(w.En)
			f(w.Mask)
		}
		for _, r := range mem.Reads {
			f(r.Addr)
			f(r.En)
		}
	}
	for _, in := range m.Insts {
		for _, p := range in.Module.Ports {
			f(in.Inputs[p.Name])
		}
	}
}

func cellOf(x *hdl.Expr) OpCell {
	w := x.Width()
	signed := x.Signed()
	data := x.Args
	switch x.Op {
	case hdl.OpMux:
		data = x.Args[1:]
	case hdl.OpShl, hdl.OpShr:
		data = x.Args[:1]
	}
	for i, a := range data {
		if i == 0 {
			signed = a.Signed()
		}
		w = max(w, a.Width())
	}
	return OpCell{Op: x.Op, Class: ClassOf(w), Signed: signed}
}

// Merge adds o's tallies to c.
func (c *Coverage) Merge(o *Coverage) {
	c.Designs += o.Designs
	c.Cycles += o.Cycles
	c.Nodes += o.Nodes
	c.Folded += o.Folded
	for k, v := range o.Ops {
		c.Ops[k] += v
	}
	for k, v := range o.Widths {
		c.Widths[k] += v
	}
	for k, v := range o.Constructs {
		c.Constructs[k] += v
	}
	for k, v := range o.Avoided {
		c.Avoided[k] += v
	}
}

// addConstructs takes the generator's tally of constructs and avoidances.
func (c *Coverage) addConstructs(feat map[string]int) {
	for k, v := range feat {
		if a, ok := strings.CutPrefix(k, avoidedPrefix); ok {
			c.Avoided[Construct(a)] += v
		} else {
			c.Constructs[k] += v
		}
	}
}

// Count is the number of nodes of op tallied, over all cells.
func (c *Coverage) Count(op hdl.Op) int {
	n := 0
	for k, v := range c.Ops {
		if k.Op == op {
			n += v
		}
	}
	return n
}

// Missing lists the operators never exercised.
func (c *Coverage) Missing() []hdl.Op {
	var miss []hdl.Op
	for _, op := range AllOps() {
		if c.Count(op) == 0 {
			miss = append(miss, op)
		}
	}
	return miss
}

// Cells reports how many op x width class x signedness cells were hit, of
// the cells for widths up to 200 that any design can hit (a product, say,
// is never one bit wide, and the operand of AsSInt is never signed).
func (c *Coverage) Cells() (hit, possible int) {
	for _, op := range AllOps() {
		for cl := W1; cl <= W129to200; cl++ {
			for _, s := range []bool{false, true} {
				if !CellPossible(OpCell{op, cl, s}) {
					continue
				}
				possible++
				if c.Ops[OpCell{op, cl, s}] > 0 {
					hit++
				}
			}
		}
	}
	return hit, possible
}

// CellPossible reports whether some design can have a node in cell.
func CellPossible(cell OpCell) bool {
	switch cell.Op {
	case hdl.OpNeg: // the operand is made signed, the result at least 2 bits
		return cell.Signed && cell.Class != W1
	case hdl.OpAdd, hdl.OpSub, hdl.OpMul, hdl.OpShlConst, hdl.OpExt, hdl.OpTrunc:
		return cell.Class != W1 // a result or operand of 2 bits or more
	case hdl.OpAsSInt:
		return !cell.Signed
	case hdl.OpAsUInt:
		return cell.Signed
	}
	return true
}

// String is a table of node counts per operator, width class and
// signedness, followed by the boundary widths and the DSL constructs.
func (c *Coverage) String() string {
	var b strings.Builder
	hit, possible := c.Cells()
	fmt.Fprintf(&b, "coverage: %d designs, %d cycles, %d nodes (+%d constant-folded), %d of %d possible op x width x sign cells hit\n",
		c.Designs, c.Cycles, c.Nodes, c.Folded, hit, possible)
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "op\t")
	for _, s := range []string{"u", "s"} {
		for cl := W1; cl <= W129to200; cl++ {
			fmt.Fprintf(tw, "%s%s\t", s, cl)
		}
	}
	fmt.Fprint(tw, "\n")
	for _, op := range AllOps() {
		fmt.Fprintf(tw, "%s\t", op)
		for _, s := range []bool{false, true} {
			for cl := W1; cl <= W129to200; cl++ {
				cell := OpCell{op, cl, s}
				switch n := c.Ops[cell]; {
				case n > 0:
					fmt.Fprintf(tw, "%d\t", n)
				case CellPossible(cell):
					fmt.Fprint(tw, ".\t")
				default:
					fmt.Fprint(tw, "-\t")
				}
			}
		}
		fmt.Fprint(tw, "\n")
	}
	tw.Flush()
	var ws []int
	for w := range boundaryWidths {
		ws = append(ws, w)
	}
	sort.Ints(ws)
	b.WriteString("values at boundary widths:")
	for _, w := range ws {
		fmt.Fprintf(&b, " %d:%d", w, c.Widths[w])
	}
	b.WriteString("\nconstructs:")
	var names []string
	for k := range c.Constructs {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %s %d", sep, k, c.Constructs[k])
	}
	b.WriteString("\n")
	if len(c.Avoided) > 0 {
		var as []string
		for k, v := range c.Avoided {
			as = append(as, fmt.Sprintf("%s (%d)", k, v))
		}
		sort.Strings(as)
		fmt.Fprintf(&b, "AVOIDED on request, not covered: %s\n", strings.Join(as, "; "))
	}
	return b.String()
}
