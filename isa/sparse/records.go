package sparse

import (
	"fmt"
	"math/big"
)

// The sparse engine inside the NPU (docs/engines.md, "Sparse engine"):
// the NPU's dma_in writes its memories (load_sparse) and dma_out reads
// its accumulators out (store_sparse). A record wider than an external
// line spans several consecutive lines, low bits first; the layouts below
// say where a DMA task's operand points.

// Kind is the memory a load_sparse writes.
type Kind int

// The memories of a load_sparse, in the kind field's code order.
const (
	KindEntries Kind = iota // a unit's buffer set: entry records
	KindWeights             // every unit's weight memory: weight records
	KindTable               // every unit's channel table: table records
	NumKinds
)

var kindNames = [...]string{"entries", "weights", "table"}

func (k Kind) String() string {
	if k >= 0 && k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind%d", int(k))
}

// Record is the layout of the records of kind k.
func (c Sizes) Record(k Kind) Layout {
	switch k {
	case KindWeights:
		return c.Weight()
	case KindTable:
		return c.Table()
	}
	return c.Entry()
}

// Depth is how many records of kind k one memory holds.
func (c Sizes) Depth(k Kind) int {
	switch k {
	case KindWeights:
		return c.WeightDepth
	case KindTable:
		return c.TableDepth
	}
	return c.Entries
}

// LoadAddr is the destination operand of a load_sparse: the first record
// address in the memory of that kind, and for entries the unit and the
// buffer set (weights and tables reach every unit's copy: unit and set
// are ignored).
func (c Sizes) LoadAddr() Layout {
	aw := max(c.EntryAddrWidth(), c.WeightAddrWidth(), c.TableAddrWidth())
	return newLayout("load_addr",
		Field{Name: "addr", Width: aw},
		Field{Name: "set", Width: 1},
		Field{Name: "unit", Width: clogWidth(c.Units)},
		Field{Name: "kind", Width: 2})
}

// ReadAddr is the source operand of a store_sparse: the unit, its
// accumulator bank and the first entry.
func (c Sizes) ReadAddr() Layout {
	return newLayout("read_addr",
		Field{Name: "addr", Width: c.AccAddrWidth()},
		Field{Name: "bank", Width: 1},
		Field{Name: "unit", Width: clogWidth(c.Units)})
}

// AccWordWidth is the width of an accumulator entry: Lanes sums.
func (c Sizes) AccWordWidth() int { return c.Lanes * c.AccWidth }

// LinesPer is how many external lines of lineWidth bits a record of
// width bits takes.
func LinesPer(width, lineWidth int) int { return (width + lineWidth - 1) / lineWidth }

// Grouping is how records of width bits sit in external lines of
// lineWidth bits: a group of per records, record i of the group at bit
// i·width, in lines lines (low bits first). A record no wider than a
// line shares it with as many others as fit (lines = 1); a wider one
// spans lines (per = 1).
func Grouping(width, lineWidth int) (per, lines int) {
	if width <= lineWidth {
		return lineWidth / width, 1
	}
	return 1, LinesPer(width, lineWidth)
}

// GroupLines is the external lines n records of width bits take.
func GroupLines(n, width, lineWidth int) int {
	per, lines := Grouping(width, lineWidth)
	return (n + per - 1) / per * lines
}

// RecordsToLines lays records of width bits out in groups (Grouping),
// the last group padded with zeros.
func RecordsToLines(recs []*big.Int, width, perLine, elemWidth int) [][]int64 {
	per, lines := Grouping(width, perLine*elemWidth)
	var out [][]int64
	for g := 0; g < len(recs); g += per {
		group := new(big.Int)
		for i := g; i < min(g+per, len(recs)); i++ {
			group.Or(group, new(big.Int).Lsh(recs[i], uint((i-g)*width)))
		}
		out = append(out, ToLines(group, lines, perLine, elemWidth)...)
	}
	return out
}

// LinesToRecords is the inverse of RecordsToLines: the first n records
// of width bits held by lines.
func LinesToRecords(lines [][]int64, n, width, elemWidth int) []*big.Int {
	per, span := Grouping(width, len(lines[0])*elemWidth)
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(width)), big.NewInt(1))
	out := make([]*big.Int, 0, n)
	for g := 0; len(out) < n; g++ {
		group := FromLines(lines[g*span:(g+1)*span], elemWidth)
		for i := 0; i < per && len(out) < n; i++ {
			r := new(big.Int).Rsh(group, uint(i*width))
			out = append(out, r.And(r, mask))
		}
	}
	return out
}

// ToLines cuts a record into n external lines of perLine elements of
// elemWidth bits (two's complement, as every line of the NPU's external
// memory holds them): element p of line j is bits j·perLine·elemWidth +
// p·elemWidth and up.
func ToLines(rec *big.Int, n, perLine, elemWidth int) [][]int64 {
	mask := new(big.Int).SetUint64(1<<uint(elemWidth) - 1)
	out := make([][]int64, n)
	for j := range out {
		out[j] = make([]int64, perLine)
		for p := range out[j] {
			e := new(big.Int).Rsh(rec, uint((j*perLine+p)*elemWidth))
			v := e.And(e, mask).Int64()
			if v>>uint(elemWidth-1)&1 != 0 {
				v -= 1 << uint(elemWidth)
			}
			out[j][p] = v
		}
	}
	return out
}

// FromLines is the inverse of ToLines: the record held by lines.
func FromLines(lines [][]int64, elemWidth int) *big.Int {
	out := new(big.Int)
	mask := int64(1)<<uint(elemWidth) - 1
	at := 0
	for _, l := range lines {
		for _, e := range l {
			out.Or(out, new(big.Int).Lsh(big.NewInt(e&mask), uint(at)))
			at += elemWidth
		}
	}
	return out
}
