package machine

import (
	"fmt"

	"github.com/hwgen/hwgen/isa"
)

// transfer is dma_in: for k < rows, l < lines: external line
// ext+k·stride+l → address dst+k·lines+l of the state or weight buffer.
func (m *Machine) transfer(ext, dst, lines, rows, stride int, to isa.Mem) error {
	s := m.Sizes
	for k := 0; k < rows; k++ {
		for l := 0; l < lines; l++ {
			line, err := m.extLine(ext + k*stride + l)
			if err != nil {
				return err
			}
			a := dst + k*lines + l
			m.Stats.DMAInLines++
			m.touch(isa.MemExt, ext+k*stride+l, false)
			m.touch(to, a, true)
			if to == isa.MemState {
				if a >= s.StateDepth {
					return fmt.Errorf("dma_in load: state address %d outside 0..%d", a, s.StateDepth-1)
				}
				for p := 0; p < s.Rows; p++ {
					m.State[p][a] = m.elem.Wrap(line[p])
				}
				continue
			}
			if a >= s.WeightDepth {
				return fmt.Errorf("dma_in load_weights: weight row %d outside 0..%d", a, s.WeightDepth-1)
			}
			for c := 0; c < s.Cols; c++ {
				m.Weight[a][c] = m.elem.Wrap(line[c])
			}
		}
	}
	return nil
}

// store is dma_out: for k < rows, l < lines: state address
// src+k·lines+l → external line ext+k·stride+l.
func (m *Machine) store(t isa.Store) error {
	s := m.Sizes
	for k := 0; k < t.Rows; k++ {
		for l := 0; l < t.Lines; l++ {
			a := t.State + k*t.Lines + l
			if a >= s.StateDepth {
				return fmt.Errorf("dma_out store: state address %d outside 0..%d", a, s.StateDepth-1)
			}
			x := t.Ext + k*t.Stride + l
			line, err := m.extLine(x)
			if err != nil {
				return err
			}
			for p := 0; p < s.Rows; p++ {
				line[p] = m.State[p][a]
			}
			m.Stats.DMAOutLines++
			m.touch(isa.MemState, a, false)
			m.touch(isa.MemExt, x, true)
		}
	}
	return nil
}
