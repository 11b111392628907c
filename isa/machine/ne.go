package machine

import (
	"fmt"

	"github.com/hwgen/hwgen/isa"
)

// transpose is the NE's transpose: state row i of the columns
// src..src+cols−1 → psum entry psum+i, zeros past cols.
func (m *Machine) transpose(t isa.Transpose) error {
	s := m.Sizes
	R, C := s.Rows, s.Cols
	if t.Rows < 1 || t.Rows > R || t.Cols < 1 || t.Cols > C {
		return fmt.Errorf("ne transpose of %dx%d: rows must be 1..%d, columns 1..%d", t.Rows, t.Cols, R, C)
	}
	if t.Src+t.Cols > s.StateDepth || t.Psum+t.Rows > s.PsumDepth {
		return fmt.Errorf("ne transpose: src %d + %d or dst %d + %d outside the buffers", t.Src, t.Cols, t.Psum, t.Rows)
	}
	for i := 0; i < t.Rows; i++ {
		m.touch(isa.MemPsum, t.Psum+i, true)
		for j := 0; j < t.Cols; j++ {
			m.touch(isa.MemState, t.Src+j, false)
		}
		for j := 0; j < C; j++ {
			v := int64(0)
			if j < t.Cols {
				v = m.State[i][t.Src+j]
			}
			m.Psum[j][t.Psum+i] = v
		}
	}
	m.Stats.NEVectors += t.Rows
	return nil
}

// conv is the NE's conv and gemm: one pass per input tile and kernel
// offset, each through Rows weight rows, the first overwriting the psums
// unless the task accumulates.
func (m *Machine) conv(t isa.Conv) error {
	s := m.Sizes
	R := s.Rows
	kh, kw, st, oh, ow := t.KH, t.KW, t.Stride, t.OH, t.OW
	h, w, ct := t.H, t.W, t.Tiles
	if kh < 1 || kw < 1 || st < 1 || oh < 1 || ow < 1 || h < 1 || w < 1 || ct < 1 {
		return fmt.Errorf("ne conv: kh %d kw %d stride %d oh %d ow %d h %d w %d tiles %d: all must be at least 1", kh, kw, st, oh, ow, h, w, ct)
	}
	src, aux, dst := t.Src, t.Weights, t.Psum
	if dst+oh*ow > s.PsumDepth {
		return fmt.Errorf("ne conv: psum entries %d..%d outside 0..%d", dst, dst+oh*ow-1, s.PsumDepth-1)
	}
	if aux+ct*kh*kw*R > s.WeightDepth {
		return fmt.Errorf("ne conv: weight rows %d..%d outside 0..%d", aux, aux+ct*kh*kw*R-1, s.WeightDepth-1)
	}
	p := 0
	for tile := 0; tile < ct; tile++ {
		for ky := 0; ky < kh; ky++ {
			for kx := 0; kx < kw; kx++ {
				acc := p > 0 || t.Acc
				if err := m.convPass(src+tile*h*w, aux+p*R, t, ky, kx, acc); err != nil {
					return err
				}
				p++
			}
		}
	}
	return nil
}

// convPass streams one kernel offset's input vectors (zeros for padding)
// through the weights at row wrow into the output psums.
func (m *Machine) convPass(plane, wrow int, t isa.Conv, ky, kx int, acc bool) error {
	R, C := m.Sizes.Rows, m.Sizes.Cols
	x := make([]int64, R)
	sum := make([]int64, C)
	for r := 0; r < R; r++ {
		m.touch(isa.MemWeight, wrow+r, false)
	}
	for oy := 0; oy < t.OH; oy++ {
		for ox := 0; ox < t.OW; ox++ {
			iy, ix := oy*t.Stride+ky-t.PadH, ox*t.Stride+kx-t.PadW
			m.Stats.NEVectors++
			m.Stats.NEMACs += int64(R * C)
			if iy >= 0 && iy < t.H && ix >= 0 && ix < t.W {
				a := plane + iy*t.W + ix
				if a >= m.Sizes.StateDepth {
					return fmt.Errorf("ne conv: state address %d outside 0..%d", a, m.Sizes.StateDepth-1)
				}
				for r := 0; r < R; r++ {
					x[r] = m.State[r][a]
				}
				m.Stats.NEReads++
				m.touch(isa.MemState, a, false)
			} else {
				clear(x)
			}
			for c := 0; c < C; c++ {
				var v int64
				for r := 0; r < R; r++ {
					v += x[r] * m.Weight[wrow+r][c]
				}
				sum[c] = v
			}
			e := t.Psum + oy*t.OW + ox
			m.touch(isa.MemPsum, e, true)
			if acc {
				m.touch(isa.MemPsum, e, false)
			}
			for c := 0; c < C; c++ {
				if acc {
					m.Psum[c][e] = m.acc.Wrap(m.Psum[c][e] + sum[c])
				} else {
					m.Psum[c][e] = m.acc.Wrap(sum[c])
				}
			}
		}
	}
	return nil
}
