package sparseconv

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/compiler/partition"
	"github.com/hwgen/hwgen/isa/machine"
)

// Planes are a unit's read-out: Planes[t][y·OW+x][j] is output channel
// t·Lanes + j at pixel (y, x) of the unit's plane, as the accumulator
// holds it (wrapped to AccWidth, signed).
type Planes [][][]int64

// Model runs unit i's program without hardware, pass by pass, with the
// sparse engine's one model (machine.Scatter): every entry meets every
// record of its channel's weight list; the product of lane j lands at
// (row − ky, col − kx) of the stride-1 valid correlation, kept when it is
// on the stride's grid inside the plane.
func (p *Program) Model(i int) (Planes, error) {
	u := p.Units[i]
	r := machine.SparseRecords{Entries: u.Entries, Weights: p.Weights, Table: p.Table}
	out := make(Planes, p.Passes)
	for t := range p.Passes {
		acc := make([][]int64, u.OH*u.OW)
		for a := range acc {
			acc[a] = make([]int64, p.Config.Lanes)
		}
		pass := machine.ScatterPass{OH: u.OH, OW: u.OW, Stride: p.Conv.Stride, TBase: t * p.Conv.C}
		if _, err := machine.Scatter(p.Config.Sizes, r, pass, acc, nil); err != nil {
			return nil, fmt.Errorf("sparseconv: unit %d, pass %d: %w", i, t, err)
		}
		out[t] = acc
	}
	return out, nil
}

func wrap(v int64, w int) int64 {
	sh := uint(64 - w)
	return v << sh >> sh
}

// Stitch assembles every unit's planes into the output [Cout][OH][OW].
func (p *Program) Stitch(units []Planes) ([]int64, error) {
	if len(units) != len(p.Units) {
		return nil, fmt.Errorf("sparseconv: %d unit outputs for %d units", len(units), len(p.Units))
	}
	cout, lanes := p.Conv.Cout, p.Config.Lanes
	parts := make([][]int64, len(units))
	for i, pl := range units {
		u := p.Units[i]
		if len(pl) != p.Passes {
			return nil, fmt.Errorf("sparseconv: unit %d has %d passes, want %d", i, len(pl), p.Passes)
		}
		part := make([]int64, cout*u.OH*u.OW)
		for t, plane := range pl {
			if len(plane) != u.OH*u.OW {
				return nil, fmt.Errorf("sparseconv: unit %d pass %d has %d pixels, want %d", i, t, len(plane), u.OH*u.OW)
			}
			for a, px := range plane {
				for j := range lanes {
					if o := t*lanes + j; o < cout {
						part[o*u.OH*u.OW+a] = px[j]
					}
				}
			}
		}
		parts[i] = part
	}
	return partition.Stitch(p.Plan, cout, parts)
}

// LanesOf splits an accumulator read-out word into its lanes (lane 0 in
// the low bits), signed.
func (p *Program) LanesOf(word *big.Int) []int64 {
	aw := p.Config.AccWidth
	out := make([]int64, p.Config.Lanes)
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(aw)), big.NewInt(1))
	for j := range out {
		v := new(big.Int).Rsh(word, uint(j*aw))
		out[j] = wrap(v.And(v, mask).Int64(), aw)
	}
	return out
}
