package partition

import "fmt"

// Extract copies partition i's input slice out of the [C][H][W] values x:
// [C][Rows.In.Len()][Cols.In.Len()].
func Extract[T any](p *Plan, i int, x []T) ([]T, error) {
	if err := p.checkPart(i, len(x)); err != nil {
		return nil, err
	}
	pt := p.Parts[i]
	ri, ci := pt.Rows.In, pt.Cols.In
	out := make([]T, 0, p.C*ri.Len()*ci.Len())
	for c := 0; c < p.C; c++ {
		for y := ri.Lo; y < ri.Hi; y++ {
			base := (c*p.H + y) * p.W
			out = append(out, x[base+ci.Lo:base+ci.Hi]...)
		}
	}
	return out, nil
}

// Padded is partition i's input with its zero rows and columns in place:
// [C][h][w] with h = PadLo+Rows.In.Len()+PadHi (w likewise). A
// convolution with the plan's kernel and stride and no padding on it
// gives exactly the partition's outputs, [Cout][Rows.Out.Len()][Cols.Out.Len()].
func Padded[T any](p *Plan, i int, x []T) (v []T, h, w int, err error) {
	if err := p.checkPart(i, len(x)); err != nil {
		return nil, 0, 0, err
	}
	pt := p.Parts[i]
	rs, cs := pt.Rows, pt.Cols
	h, w = rs.PadLo+rs.In.Len()+rs.PadHi, cs.PadLo+cs.In.Len()+cs.PadHi
	v = make([]T, p.C*h*w)
	for c := 0; c < p.C; c++ {
		for y := rs.In.Lo; y < rs.In.Hi; y++ {
			src := (c*p.H + y) * p.W
			dst := (c*h+y-rs.In.Lo+rs.PadLo)*w + cs.PadLo
			copy(v[dst:dst+cs.In.Len()], x[src+cs.In.Lo:src+cs.In.Hi])
		}
	}
	return v, h, w, nil
}

func (p *Plan) checkPart(i, n int) error {
	if p == nil || i < 0 || i >= len(p.Parts) {
		return fmt.Errorf("partition: no partition %d", i)
	}
	if n != p.C*p.H*p.W {
		return fmt.Errorf("partition: the input needs %d values (%dx%dx%d), got %d", p.C*p.H*p.W, p.C, p.H, p.W, n)
	}
	return nil
}

// Stitch assembles the partitions' outputs, parts[i] being partition i's
// [cout][Rows.Out.Len()][Cols.Out.Len()], into the whole output
// [cout][OH][OW]. In Halo mode every output comes from exactly one
// partition and is placed; in PartialSums mode the partial sums are added
// (wrapping like the accumulators, so the result is bit-identical to the
// unpartitioned sums even where they overflow).
func Stitch[T ~int32 | ~int64](p *Plan, cout int, parts [][]T) ([]T, error) {
	if p == nil {
		return nil, fmt.Errorf("partition: no plan")
	}
	if cout < 1 {
		return nil, fmt.Errorf("partition: cout = %d must be at least 1", cout)
	}
	if len(parts) != len(p.Parts) {
		return nil, fmt.Errorf("partition: %d partition outputs for %d partitions", len(parts), len(p.Parts))
	}
	out := make([]T, cout*p.OH*p.OW)
	var seen []bool
	if p.Mode == Halo {
		seen = make([]bool, p.OH*p.OW)
	}
	for i, pt := range p.Parts {
		ro, co := pt.Rows.Out, pt.Cols.Out
		if want := cout * ro.Len() * co.Len(); len(parts[i]) != want {
			return nil, fmt.Errorf("partition: partition %d output has %d values, want %d (%dx%dx%d)", i, len(parts[i]), want, cout, ro.Len(), co.Len())
		}
		if ro.Lo < 0 || ro.Hi > p.OH || co.Lo < 0 || co.Hi > p.OW {
			return nil, fmt.Errorf("partition: partition %d outputs %v×%v leave the %dx%d output", i, ro, co, p.OH, p.OW)
		}
		for y := ro.Lo; y < ro.Hi; y++ {
			for x := co.Lo; x < co.Hi; x++ {
				if seen != nil {
					if seen[y*p.OW+x] {
						return nil, fmt.Errorf("partition: output (%d, %d) is computed by two partitions", y, x)
					}
					seen[y*p.OW+x] = true
				}
				for o := 0; o < cout; o++ {
					v := parts[i][(o*ro.Len()+y-ro.Lo)*co.Len()+x-co.Lo]
					if seen != nil {
						out[(o*p.OH+y)*p.OW+x] = v
					} else {
						out[(o*p.OH+y)*p.OW+x] += v
					}
				}
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("partition: output (%d, %d) is computed by no partition", i/p.OW, i%p.OW)
		}
	}
	return out, nil
}
