package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
)

// record is a packed bit layout: named fields placed from bit 0 upwards in
// the order they are added. The descriptor layout and the task manager's
// internal slot entries are records, so offsets are computed in exactly one
// place and packing and slicing can never disagree.
type record struct {
	names  []string
	widths []int
	offs   []int
	index  map[string]int
	width  int
}

func newRecord() *record { return &record{index: map[string]int{}} }

func (r *record) add(name string, width int) {
	if _, dup := r.index[name]; dup || width < 1 {
		panic(fmt.Sprintf("taskmgr: bad record field %q width %d", name, width)) // a bug in this package's tables
	}
	r.index[name] = len(r.names)
	r.names = append(r.names, name)
	r.widths = append(r.widths, width)
	r.offs = append(r.offs, r.width)
	r.width += width
}

// pack concatenates the values, each exactly as wide as its field.
func (r *record) pack(vals map[string]hdl.Value) *hdl.Expr {
	parts := make([]hdl.Value, len(r.names))
	for i, name := range r.names {
		v, ok := vals[name]
		if !ok {
			panic(fmt.Sprintf("taskmgr: record field %q not packed", name))
		}
		parts[len(parts)-1-i] = v // Cat puts its first argument at the top
	}
	return hdl.Cat(parts...)
}

// slice cuts v into its fields.
func (r *record) slice(v hdl.Value) map[string]*hdl.Expr {
	e := exprOf(v)
	out := make(map[string]*hdl.Expr, len(r.names))
	for i, name := range r.names {
		out[name] = e.Slice(r.offs[i]+r.widths[i]-1, r.offs[i])
	}
	return out
}

// exprOf turns a Value (an *hdl.Expr or an *hdl.Signal) into an *hdl.Expr.
func exprOf(v hdl.Value) *hdl.Expr {
	switch x := v.(type) {
	case *hdl.Expr:
		return x
	case *hdl.Signal:
		return &x.Expr
	}
	panic(fmt.Sprintf("taskmgr: unexpected hdl.Value %T", v))
}
