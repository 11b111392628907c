package machine

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/sparse"
)

// SparseRecords are one sparse unit's records as the engine holds them:
// its entries (value, channel, row, col: sparse.Sizes.Entry), its weight
// list (ky, kx, one weight per lane: Weight) and its channel table
// (start, count: Table). A nil record is all zero (a memory never
// written).
type SparseRecords struct {
	Entries, Weights, Table []*big.Int
}

// ScatterPass is one pass of the sparse convolution beyond its records:
// the output plane, OH×OW (accumulator entry y·OW + x), the stride, and
// the channel table's base (channel c's weight list is described by
// table record TBase + c).
type ScatterPass struct {
	OH, OW, Stride, TBase int
}

// Scatter is the sparse engine's convolution, its one model (the
// machine's sparse conv task and compiler/sparseconv's Model both run
// it): every entry meets every record of its channel's weight list, and
// lane j's product value·w_j lands at (row − ky, col − kx), kept when it
// is on the stride's grid inside the plane, where it is added to
// plane[y·OW + x][j], wrapping to AccWidth.
//
// It returns the multiplications performed: per entry and weight record,
// the lanes whose value and weight are both non-zero, whether or not the
// product lands. touch, when not nil, is told every record read and
// every accumulator entry read and written, in order, by its index in
// r's slices or in plane (mem MemSparseEntries, MemSparseTable,
// MemSparseWeights, MemSparseAcc). A table or weight record outside r's
// slices is an error (the accumulators already hold the products before
// it, as on the hardware's memories).
func Scatter(c sparse.Sizes, r SparseRecords, p ScatterPass, plane [][]int64, touch func(mem isa.Mem, a int, write bool)) (mults int64, err error) {
	if p.OH*p.OW > len(plane) || p.Stride < 1 {
		return 0, fmt.Errorf("sparse conv: plane %dx%d with stride %d on %d accumulator entries", p.OH, p.OW, p.Stride, len(plane))
	}
	if touch == nil {
		touch = func(isa.Mem, int, bool) {}
	}
	el, wl, tl := c.Entry(), c.Weight(), c.Table()
	sum, s := golden.S(c.AccWidth), p.Stride
	for i := range r.Entries {
		touch(isa.MemSparseEntries, i, false)
		f := el.Unpack(record(r.Entries, i)) // value, channel, row, col
		ta := p.TBase + int(f[1])
		if ta >= len(r.Table) {
			return mults, fmt.Errorf("sparse conv: channel-table entry %d outside 0..%d", ta, len(r.Table)-1)
		}
		touch(isa.MemSparseTable, ta, false)
		tab := tl.Unpack(record(r.Table, ta)) // start, count
		for k := tab[0]; k < tab[0]+tab[1]; k++ {
			if int(k) >= len(r.Weights) {
				return mults, fmt.Errorf("sparse conv: weight record %d outside 0..%d", k, len(r.Weights)-1)
			}
			touch(isa.MemSparseWeights, int(k), false)
			wr := wl.Unpack(record(r.Weights, int(k))) // ky, kx, w0..
			for j := range c.Lanes {
				if f[0] != 0 && wr[2+j] != 0 {
					mults++
				}
			}
			ty, tx := int(f[2]-wr[0]), int(f[3]-wr[1])
			if ty < 0 || tx < 0 || ty%s != 0 || tx%s != 0 || ty/s >= p.OH || tx/s >= p.OW {
				continue
			}
			a := ty/s*p.OW + tx/s
			touch(isa.MemSparseAcc, a, false)
			touch(isa.MemSparseAcc, a, true)
			px := plane[a]
			for j := range c.Lanes {
				px[j] = sum.Wrap(px[j] + f[0]*wr[2+j])
			}
		}
	}
	return mults, nil
}

// record is the record at a of mem (zero if never written).
func record(mem []*big.Int, a int) *big.Int {
	if mem[a] == nil {
		return new(big.Int)
	}
	return mem[a]
}
