package partition

import (
	"fmt"
	"math"
)

// PartMetrics is one partition's work.
type PartMetrics struct {
	// NNZ and Elements are the non-zero and all values (all channels) of
	// the input slice; Density is NNZ/Elements (1 − sparsity, the
	// "non-zero share" of docs/sources.md §4).
	NNZ, Elements int64
	Density       float64
	// DenseMACs are the multiply-accumulates of the dense loop nest that
	// belong to the partition: every (output, input channel, tap, output
	// channel), padding taps included. In Halo mode they are those of its
	// outputs; in PartialSums mode those whose input row and column it
	// owns (the padding beyond the map going to the edge partitions).
	// Over the partitions they add up to OH·OW·KH·KW·C·Cout.
	DenseMACs int64
	// MACs are the ones left when zero inputs are skipped: each non-zero
	// input times the taps that use it for the partition's outputs (weights
	// taken as dense). SkippedMACs = DenseMACs − MACs, the work zero
	// skipping saves (zero inputs and padding).
	MACs, SkippedMACs int64
	// ScatterMACs is the product count of a scatter datapath
	// (docs/sources.md §4) with dense weights: NNZ·KH·KW·Cout (every non-zero times every
	// weight, products that the crop discards included).
	ScatterMACs int64
}

// Metrics is the work of a plan's partitions and how evenly it is spread.
type Metrics struct {
	Parts []PartMetrics
	// MaxNNZ, MinNNZ are the extreme non-zero counts; Imbalance is
	// (MaxNNZ−MinNNZ)/MaxNNZ and NNZRatio MaxNNZ/MinNNZ (+Inf when a
	// partition is all zeros and another is not; 1 when all are).
	MaxNNZ, MinNNZ int64
	Imbalance      float64
	NNZRatio       float64
	// Totals over the partitions (equal to the whole map's: every
	// product belongs to exactly one partition).
	DenseMACs, MACs, SkippedMACs int64
	// MaxMACs, MinMACs and MACRatio are the busiest and idlest
	// partition's MACs and their ratio.
	MaxMACs, MinMACs int64
	MACRatio         float64
	// Speedup is MACs/MaxMACs: the speed-up over one engine if an
	// engine's time is proportional to the MACs it performs (ideal:
	// the number of partitions).
	Speedup float64
}

func ratio(a, b int64) float64 {
	switch {
	case b != 0:
		return float64(a) / float64(b)
	case a == 0:
		return 1
	}
	return math.Inf(1)
}

// Metrics measures the plan on the map it was made for, for a
// convolution with cout output channels.
func (p *Plan) Metrics(m *Map, cout int) (Metrics, error) {
	if err := m.check(); err != nil {
		return Metrics{}, err
	}
	if p == nil || m.C != p.C || m.H != p.H || m.W != p.W {
		return Metrics{}, fmt.Errorf("partition: the map does not match the plan")
	}
	if cout < 1 {
		return Metrics{}, fmt.Errorf("partition: cout = %d must be at least 1", cout)
	}
	c := p.Conv.norm()
	ra := newAxis(p.H, c.KH, c.Stride, c.PadH, p.Mode)
	ca := newAxis(p.W, c.KW, c.Stride, c.PadW, p.Mode)
	var mt Metrics
	mt.MinNNZ, mt.MinMACs = math.MaxInt64, math.MaxInt64
	for _, pt := range p.Parts {
		u, us := uses(ra, pt.Rows)
		v, vs := uses(ca, pt.Cols)
		var pm PartMetrics
		pm.NNZ = m.Count(pt.Rows.In, pt.Cols.In)
		pm.Elements = int64(p.C) * int64(pt.Rows.In.Len()) * int64(pt.Cols.In.Len())
		if pm.Elements > 0 {
			pm.Density = float64(pm.NNZ) / float64(pm.Elements)
		}
		pm.DenseMACs = int64(cout) * int64(p.C) * us * vs
		for y := pt.Rows.In.Lo; y < pt.Rows.In.Hi; y++ {
			uy := u[y-pt.Rows.In.Lo]
			if uy == 0 {
				continue
			}
			var row int64
			for x := pt.Cols.In.Lo; x < pt.Cols.In.Hi; x++ {
				row += int64(m.NNZ[y*p.W+x]) * v[x-pt.Cols.In.Lo]
			}
			pm.MACs += row * uy
		}
		pm.MACs *= int64(cout)
		pm.SkippedMACs = pm.DenseMACs - pm.MACs
		pm.ScatterMACs = pm.NNZ * int64(c.KH*c.KW*cout)
		mt.Parts = append(mt.Parts, pm)
		mt.MaxNNZ, mt.MinNNZ = max(mt.MaxNNZ, pm.NNZ), min(mt.MinNNZ, pm.NNZ)
		mt.MaxMACs, mt.MinMACs = max(mt.MaxMACs, pm.MACs), min(mt.MinMACs, pm.MACs)
		mt.DenseMACs += pm.DenseMACs
		mt.MACs += pm.MACs
		mt.SkippedMACs += pm.SkippedMACs
	}
	if mt.MaxNNZ > 0 {
		mt.Imbalance = float64(mt.MaxNNZ-mt.MinNNZ) / float64(mt.MaxNNZ)
	}
	mt.NNZRatio = ratio(mt.MaxNNZ, mt.MinNNZ)
	mt.MACRatio = ratio(mt.MaxMACs, mt.MinMACs)
	if mt.MaxMACs > 0 {
		mt.Speedup = float64(mt.MACs) / float64(mt.MaxMACs)
	}
	return mt, nil
}

// uses counts, for each row of sp.In, the (output of sp.Out, tap) pairs
// that read it, and the pairs that fall in the partition's responsible
// virtual rows (padding included): its share of the dense work.
func uses(a axis, sp Span) ([]int64, int64) {
	u := make([]int64, sp.In.Len())
	resp := a.resp(sp)
	var total int64
	for o := sp.Out.Lo; o < sp.Out.Hi; o++ {
		for t := 0; t < a.k; t++ {
			r := o*a.s - a.p + t
			if r >= resp.Lo && r < resp.Hi {
				total++
			}
			if r >= sp.In.Lo && r < sp.In.Hi {
				u[r-sp.In.Lo]++
			}
		}
	}
	return u, total
}
