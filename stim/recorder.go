package stim

import (
	"fmt"
	"math/big"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
)

// Recorder drives the Go simulator interactively (a test may decide each
// cycle's inputs from the outputs, as a valid/ready client or a reference
// model does) and records every cycle's inputs, so the very same stimulus
// can then be replayed on Verilator (verify.CrossCheck).
type Recorder struct {
	Sim    *sim.Sim
	d      *hdl.Design
	index  map[string]int
	inputs []Port
	row    []*big.Int
	shared bool // row is the last recorded row: copy it before a change
	off    bool // Step records nothing (Record(false))
	st     *Stimulus
}

// NewRecorder starts a recording on a fresh simulator of d.
func NewRecorder(d *hdl.Design) (*Recorder, error) {
	s, err := sim.New(d)
	if err != nil {
		return nil, err
	}
	inputs, _ := Ports(d)
	r := &Recorder{Sim: s, d: d, index: map[string]int{}, inputs: inputs, row: make([]*big.Int, len(inputs)),
		st: &Stimulus{Inputs: inputs}}
	for i, p := range inputs {
		r.index[p.Name] = i
		r.row[i] = new(big.Int)
	}
	return r, nil
}

// Poke sets an input from now on (values hold until poked again).
// Poking the value an input already holds costs a map look-up: a client
// may poke every cycle.
func (r *Recorder) Poke(port string, v uint64) error {
	i, ok := r.index[port]
	if !ok {
		return fmt.Errorf("recorder: no input port %q in %s", port, r.d.Top.Name)
	}
	if cur := r.row[i]; cur.IsUint64() && cur.Uint64() == v {
		return nil
	}
	if err := r.Sim.Poke(port, v); err != nil {
		return err
	}
	r.set(i, r.inputs[i].Type.Bits(new(big.Int).SetUint64(v)))
	return nil
}

// PokeBig sets an input to the bit pattern (or signed value) v.
func (r *Recorder) PokeBig(port string, v *big.Int) error {
	i, ok := r.index[port]
	if !ok {
		return fmt.Errorf("recorder: no input port %q in %s", port, r.d.Top.Name)
	}
	if v.Sign() >= 0 && r.row[i].Cmp(v) == 0 {
		return nil
	}
	if err := r.Sim.PokeBig(port, v); err != nil {
		return err
	}
	r.set(i, r.inputs[i].Type.Bits(v))
	return nil
}

// set records input i's new bit pattern. Rows of cycles without a change
// share one slice, so a long run that seldom pokes records little.
func (r *Recorder) set(i int, bits *big.Int) {
	if r.shared {
		r.row = append([]*big.Int(nil), r.row...)
		r.shared = false
	}
	r.row[i] = bits
}

// Peek reads any signal of the simulator (after settling).
func (r *Recorder) Peek(path string) (uint64, error) { return r.Sim.Peek(path) }

// Step records this cycle's inputs and clocks the simulator n times.
func (r *Recorder) Step(n int) {
	for i := 0; i < n; i++ {
		if !r.off {
			r.st.Rows = append(r.st.Rows, r.row)
			r.shared = true
		}
		r.Sim.Step(1)
	}
}

// Record turns the recording on or off. A long interactive run nobody
// replays (thousands of images through one simulated NPU) would otherwise
// hold a row for each of its cycles. Rows recorded before stay; a
// recording with a gap in it no longer replays the run.
func (r *Recorder) Record(on bool) { r.off = !on }

// Stimulus is everything recorded so far. Consecutive rows may share one
// slice: treat the rows as read-only.
func (r *Recorder) Stimulus() *Stimulus { return r.st }
