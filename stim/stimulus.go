// Package stim holds what drives a design cycle by cycle: its input
// ports, a stimulus (every input's value in every cycle), ways to build
// one (Generate, Random) or record one from an interactive Go simulation
// (Recorder), and the file the Verilator harness replays it from.
//
// One cycle: apply the cycle's inputs, settle, sample every output, then
// one rising clock edge.
package stim

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/hwgen/hwgen/hdl"
)

// Port is a top-level port of a design (clk excluded, rst included when the
// design uses it).
type Port struct {
	Name string
	Type hdl.Type
}

// Stimulus holds the value of every input port for every cycle.
type Stimulus struct {
	Inputs []Port
	Rows   [][]*big.Int // Rows[cycle][i] is the bit pattern of Inputs[i]; read-only (rows may share a slice)
}

// Cycles is the number of cycles the stimulus lasts.
func (s *Stimulus) Cycles() int { return len(s.Rows) }

// Ports lists the input and output ports of d as the harness sees them.
func Ports(d *hdl.Design) (inputs, outputs []Port) {
	if d.Info[d.Top].UsesReset {
		inputs = append(inputs, Port{"rst", hdl.Bool})
	}
	for _, p := range d.Top.Ports {
		if p.Kind == hdl.Input {
			inputs = append(inputs, Port{p.Name, p.Type})
		} else {
			outputs = append(outputs, Port{p.Name, p.Type})
		}
	}
	return inputs, outputs
}

// Drive sets input values for the current cycle of Generate. Values hold
// from one cycle to the next until set again.
type Drive struct {
	index map[string]int
	ports []Port
	row   []*big.Int
	err   error
	cycle int
}

// Set gives port the value v (negative values for signed ports).
func (d *Drive) Set(port string, v int64) { d.SetBig(port, big.NewInt(v)) }

// SetBig gives port the value v.
func (d *Drive) SetBig(port string, v *big.Int) {
	if d.err != nil {
		return
	}
	i, ok := d.index[port]
	if !ok {
		names := make([]string, len(d.ports))
		for j, p := range d.ports {
			names[j] = p.Name
		}
		d.err = fmt.Errorf("stimulus cycle %d: no input port %q (inputs: %v)", d.cycle, port, names)
		return
	}
	t := d.ports[i].Type
	if !t.Fits(v) && !hdl.UInt(t.Width).Fits(v) {
		d.err = fmt.Errorf("stimulus cycle %d: value %s does not fit port %s of type %s", d.cycle, v, port, t)
		return
	}
	d.row[i] = t.Bits(v)
}

// Generate builds a stimulus of n cycles by calling f once per cycle.
func Generate(d *hdl.Design, n int, f func(cycle int, in *Drive)) (*Stimulus, error) {
	inputs, _ := Ports(d)
	drv := &Drive{index: map[string]int{}, ports: inputs, row: make([]*big.Int, len(inputs))}
	for i, p := range inputs {
		drv.index[p.Name] = i
		drv.row[i] = new(big.Int)
	}
	st := &Stimulus{Inputs: inputs}
	for c := 0; c < n; c++ {
		drv.cycle = c
		f(c, drv)
		if drv.err != nil {
			return nil, drv.err
		}
		st.Rows = append(st.Rows, append([]*big.Int(nil), drv.row...))
	}
	return st, nil
}

// Random is a seeded random stimulus of n cycles for d (see RandomSource).
func Random(d *hdl.Design, n int, seed uint64) *Stimulus {
	inputs, _ := Ports(d)
	src := NewRandomSource(inputs, seed)
	st := &Stimulus{Inputs: inputs}
	for c := 0; c < n; c++ {
		st.Rows = append(st.Rows, src.Next())
	}
	return st
}

// RandomSource yields seeded random input rows one cycle at a time, so a
// long simulation need not hold its whole stimulus: rst is high for the
// first two cycles and now and then later; every other input is random,
// biased towards the corner values 0, 1, all ones and the sign boundary.
type RandomSource struct {
	r      *rand.Rand
	inputs []Port
	cycle  int
}

// NewRandomSource starts a random stimulus for inputs.
func NewRandomSource(inputs []Port, seed uint64) *RandomSource {
	return &RandomSource{r: rand.New(rand.NewPCG(seed, 0x5eed)), inputs: inputs}
}

// Next returns the next cycle's values, one per input.
func (s *RandomSource) Next() []*big.Int {
	row := make([]*big.Int, len(s.inputs))
	for i, p := range s.inputs {
		if p.Name == "rst" {
			rst := int64(0)
			if s.cycle < 2 || s.r.IntN(64) == 0 {
				rst = 1
			}
			row[i] = big.NewInt(rst)
			continue
		}
		row[i] = RandomValue(s.r, p.Type)
	}
	s.cycle++
	return row
}

// NextWords is Next without the allocations, for long simulations: it
// writes the same bit patterns into row[i] as 64-bit words, least
// significant first (row[i] must hold (width+63)/64 words).
func (s *RandomSource) NextWords(row [][]uint64) {
	for i, p := range s.inputs {
		w := row[i]
		clear(w)
		if p.Name == "rst" {
			if s.cycle < 2 || s.r.IntN(64) == 0 {
				w[0] = 1
			}
			continue
		}
		randomWords(s.r, p.Type, w)
	}
	s.cycle++
}

// randomWords draws what RandomValue draws, into w (zeroed by the caller).
func randomWords(r *rand.Rand, t hdl.Type, w []uint64) {
	if t.Width == 1 {
		w[0] = uint64(r.IntN(2))
		return
	}
	top := len(w) - 1
	switch r.IntN(8) {
	case 0:
		return
	case 1:
		w[0] = 1
		return
	case 2:
		for i := range w {
			w[i] = ^uint64(0)
		}
	case 3:
		w[top] = 1 << uint((t.Width-1)%64)
		return
	default:
		// RandomValue shifts each draw in from the bottom: the first draw
		// ends up in the most significant word.
		for i := top; i >= 0; i-- {
			w[i] = r.Uint64()
		}
	}
	if rem := t.Width % 64; rem != 0 {
		w[top] &= ^uint64(0) >> uint(64-rem)
	}
}

// RandomValue draws a bit pattern for t, biased towards corner cases.
func RandomValue(r *rand.Rand, t hdl.Type) *big.Int {
	v := new(big.Int)
	if t.Width == 1 { // every corner is 0 or 1: a fair coin keeps controls lively
		return v.SetInt64(int64(r.IntN(2)))
	}
	switch r.IntN(8) {
	case 0:
		return v
	case 1:
		return v.SetInt64(1)
	case 2:
		return t.Mask()
	case 3:
		return v.Lsh(big.NewInt(1), uint(t.Width-1))
	}
	for i := 0; i < t.Width; i += 64 {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(r.Uint64()))
	}
	return t.Bits(v)
}
