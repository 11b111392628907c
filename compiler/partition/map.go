package partition

import "fmt"

// Map is the non-zero structure of a C×H×W feature map: NNZ[y·W+x] is how
// many of the C channels are non-zero at row y, column x. It is all the
// partitioner needs to know about the values. Build it with FromValues or
// FromMask; a Map literal gets its prefix sums on first use. Do not change
// NNZ after that.

type Map struct {
	C, H, W int
	NNZ     []int32

	sum []int64 // (H+1)×(W+1) prefix sums of NNZ
}

// Integer is the element types FromValues takes.
type Integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// FromValues is the map of the values x, laid out [C][H][W] (int8
// activations, or golden.Tensor data).
func FromValues[T Integer](c, h, w int, x []T) (*Map, error) {
	if err := checkShape(c, h, w, len(x)); err != nil {
		return nil, err
	}
	m := &Map{C: c, H: h, W: w, NNZ: make([]int32, h*w)}
	for ch := 0; ch < c; ch++ {
		for i, v := range x[ch*h*w : (ch+1)*h*w] {
			if v != 0 {
				m.NNZ[i]++
			}
		}
	}
	m.prefix()
	return m, nil
}

// FromMask is the map of a [C][H][W] non-zero mask.
func FromMask(c, h, w int, mask []bool) (*Map, error) {
	if err := checkShape(c, h, w, len(mask)); err != nil {
		return nil, err
	}
	m := &Map{C: c, H: h, W: w, NNZ: make([]int32, h*w)}
	for ch := 0; ch < c; ch++ {
		for i, nz := range mask[ch*h*w : (ch+1)*h*w] {
			if nz {
				m.NNZ[i]++
			}
		}
	}
	m.prefix()
	return m, nil
}

func checkShape(c, h, w, n int) error {
	if c < 1 || h < 1 || w < 1 {
		return fmt.Errorf("partition: feature map %dx%dx%d: C, H and W must be at least 1", c, h, w)
	}
	if n != c*h*w {
		return fmt.Errorf("partition: feature map %dx%dx%d needs %d values, got %d", c, h, w, c*h*w, n)
	}
	return nil
}

func (m *Map) prefix() {
	w1 := m.W + 1
	m.sum = make([]int64, (m.H+1)*w1)
	for y := 0; y < m.H; y++ {
		var row int64
		for x := 0; x < m.W; x++ {
			row += int64(m.NNZ[y*m.W+x])
			m.sum[(y+1)*w1+x+1] = m.sum[y*w1+x+1] + row
		}
	}
}

func (m *Map) check() error {
	if m == nil {
		return fmt.Errorf("partition: no feature map")
	}
	if err := checkShape(m.C, m.H, m.W, m.C*m.H*m.W); err != nil {
		return err
	}
	if len(m.NNZ) != m.H*m.W {
		return fmt.Errorf("partition: feature map %dx%d needs %d non-zero counts, got %d", m.H, m.W, m.H*m.W, len(m.NNZ))
	}
	for i, n := range m.NNZ {
		if n < 0 || int(n) > m.C {
			return fmt.Errorf("partition: non-zero count %d at (%d, %d) is outside [0, C=%d]", n, i/m.W, i%m.W, m.C)
		}
	}
	if len(m.sum) != (m.H+1)*(m.W+1) {
		m.prefix()
	}
	return nil
}

// Count is the number of non-zero values in rows × cols (all channels).
func (m *Map) Count(rows, cols Range) int64 {
	if rows.Len() == 0 || cols.Len() == 0 {
		return 0
	}
	if len(m.sum) != (m.H+1)*(m.W+1) {
		m.prefix()
	}
	w1 := m.W + 1
	return m.sum[rows.Hi*w1+cols.Hi] - m.sum[rows.Lo*w1+cols.Hi] - m.sum[rows.Hi*w1+cols.Lo] + m.sum[rows.Lo*w1+cols.Lo]
}

// Total is the number of non-zero values in the map.
func (m *Map) Total() int64 { return m.Count(Range{0, m.H}, Range{0, m.W}) }
