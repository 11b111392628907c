package sparse

import (
	"fmt"
	"math/big"
	"strings"
)

// Field is one field of a record, field 0 at bit 0.
type Field struct {
	Name   string
	Width  int
	Offset int
	Signed bool // two's complement
}

// Layout packs a record (a memory-unit entry, a weight-list entry, a
// channel-table entry or a task) into bits. Each layout is defined once,
// from the configuration: the hardware cuts its fields out with Get, the
// compiler packs them with Pack, tests unpack with Unpack.
type Layout struct {
	Name   string
	Fields []Field
	Width  int
}

func newLayout(name string, fields ...Field) Layout {
	l := Layout{Name: name}
	for _, f := range fields {
		f.Offset = l.Width
		l.Fields = append(l.Fields, f)
		l.Width += f.Width
	}
	return l
}

func (l Layout) index(name string) int {
	for i, f := range l.Fields {
		if f.Name == name {
			return i
		}
	}
	panic(fmt.Sprintf("sparse: layout %s has no field %q", l.Name, name))
}

// Field returns the field called name.
func (l Layout) Field(name string) Field { return l.Fields[l.index(name)] }

// Range is the smallest and largest value of the named field.
func (l Layout) Range(name string) (lo, hi int64) {
	f := l.Field(name)
	if f.Signed {
		return -1 << uint(f.Width-1), 1<<uint(f.Width-1) - 1
	}
	return 0, 1<<uint(f.Width) - 1
}

// Pack packs vals, one per field in field order; a value that does not
// fit its field is an error naming the field.
func (l Layout) Pack(vals ...int64) (*big.Int, error) {
	if len(vals) != len(l.Fields) {
		return nil, fmt.Errorf("sparse: %s record has %d fields, got %d values", l.Name, len(l.Fields), len(vals))
	}
	out := new(big.Int)
	for i, f := range l.Fields {
		if lo, hi := l.Range(f.Name); vals[i] < lo || vals[i] > hi {
			return nil, fmt.Errorf("sparse: %s field %s = %d does not fit %d bits (%d..%d)", l.Name, f.Name, vals[i], f.Width, lo, hi)
		}
		v := big.NewInt(vals[i])
		v.And(v, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(f.Width)), big.NewInt(1)))
		out.Or(out, v.Lsh(v, uint(f.Offset)))
	}
	return out, nil
}

// Unpack is the inverse of Pack.
func (l Layout) Unpack(bits *big.Int) []int64 {
	out := make([]int64, len(l.Fields))
	for i, f := range l.Fields {
		v := new(big.Int).Rsh(bits, uint(f.Offset))
		v.And(v, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(f.Width)), big.NewInt(1)))
		x := v.Int64()
		if f.Signed && x>>uint(f.Width-1)&1 != 0 {
			x -= 1 << uint(f.Width)
		}
		out[i] = x
	}
	return out
}

// Entry is a memory unit's record: one non-zero input value and where it
// sits (channel, row, column of the partition's padded input).
func (c Sizes) Entry() Layout {
	iw := c.IndexWidth
	return newLayout("entry",
		Field{Name: "value", Width: c.ValueWidth, Signed: true},
		Field{Name: "channel", Width: c.ChannelWidth()},
		Field{Name: "row", Width: iw},
		Field{Name: "col", Width: iw})
}

// Weight is a weight-list record: one kernel position (ky, kx) with a
// non-zero weight in at least one lane, and the weights of the pass's
// Lanes output channels there.
func (c Sizes) Weight() Layout {
	fs := []Field{{Name: "ky", Width: c.KernelWidth()}, {Name: "kx", Width: c.KernelWidth()}}
	for j := range c.Lanes {
		fs = append(fs, Field{Name: fmt.Sprintf("w%d", j), Width: c.WeightWidth, Signed: true})
	}
	return newLayout("weight", fs...)
}

// Table is a channel-table record: where an input channel's weight list
// starts in the weight memory and how many records it has.
func (c Sizes) Table() Layout {
	return newLayout("table",
		Field{Name: "start", Width: c.WeightAddrWidth()},
		Field{Name: "count", Width: c.WeightAddrWidth() + 1})
}

// Task operations: the codes of the sparse engine's descriptor op field
// and of the unit's task record, one code per operation.
const (
	OpClear = 1 // write zeros to accumulator entries 0 … count−1
	OpConv  = 2 // scatter the products of count entries of a buffer set
	// OpBits is the width of the op field of the task record.
	OpBits = 2
)

// Task is a unit's task record: op, the buffer set and the number of
// entries (or accumulators to clear), the channel table's base (the
// pass's output-channel tile), the output plane (oh × ow pixels, the
// accumulator entry of pixel (y, x) is y·ow + x), the stride's log2 and
// the accumulator bank (0 with one bank).
func (c Sizes) Task() Layout {
	cw := max(c.EntryAddrWidth(), c.AccAddrWidth()) + 1
	return newLayout("task",
		Field{Name: "op", Width: OpBits},
		Field{Name: "set", Width: 1},
		Field{Name: "count", Width: cw},
		Field{Name: "tbase", Width: c.TableAddrWidth()},
		Field{Name: "oh", Width: c.IndexWidth + 1},
		Field{Name: "ow", Width: c.IndexWidth + 1},
		Field{Name: "stride_log2", Width: 2},
		Field{Name: "bank", Width: 1})
}

// Markdown documents the layout as a table.
func (l Layout) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Layout of the sparse engine's %s: %d bits, field 0 at bit 0.\n\n| bits | field |\n|---|---|\n", l.Name, l.Width)
	for _, f := range l.Fields {
		fmt.Fprintf(&b, "| %d..%d | %s |\n", f.Offset+f.Width-1, f.Offset, f.Name)
	}
	return b.String()
}
