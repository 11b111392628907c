package sparse

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
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
func (c Config) Record(k Kind) Layout {
	switch k {
	case KindWeights:
		return c.Weight()
	case KindTable:
		return c.Table()
	}
	return c.Entry()
}

// Depth is how many records of kind k one memory holds.
func (c Config) Depth(k Kind) int {
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
func (c Config) LoadAddr() Layout {
	aw := max(c.entryAddrWidth(), c.weightAddrWidth(), c.tableAddrWidth())
	return newLayout("load_addr",
		Field{Name: "addr", Width: aw},
		Field{Name: "set", Width: 1},
		Field{Name: "unit", Width: hdl.ClogWidth(c.Units)},
		Field{Name: "kind", Width: 2})
}

// ReadAddr is the source operand of a store_sparse: the unit and its
// first accumulator entry.
func (c Config) ReadAddr() Layout {
	return newLayout("read_addr",
		Field{Name: "addr", Width: c.accAddrWidth()},
		Field{Name: "unit", Width: hdl.ClogWidth(c.Units)})
}

// AccWordWidth is the width of an accumulator entry: Lanes sums.
func (c Config) AccWordWidth() int { return c.Lanes * c.AccWidth }

// LinesPer is how many external lines of lineWidth bits a record of
// width bits takes.
func LinesPer(width, lineWidth int) int { return (width + lineWidth - 1) / lineWidth }

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
