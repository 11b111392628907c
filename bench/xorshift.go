package bench

import (
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

// seed starts the xorshift64 sequence on every side.
const seed = 0x9E3779B97F4A7C15

// xorshift64 (Marsaglia's 13/7/17 triple) is trivial to write identically
// in Go, C++ and Verilog.
type xorshift uint64

func (x *xorshift) next() uint64 {
	s := uint64(*x)
	s ^= s << 13
	s ^= s >> 7
	s ^= s << 17
	*x = xorshift(s)
	return s
}

// The stimulus: rst is high for cycles 0 and 1; every other input, in
// port order, takes the low bits of the next number of the sequence.
// Inputs of more than 64 bits are not supported here.
func stimulusPorts(d *hdl.Design) (inputs, outputs []stim.Port, err error) {
	inputs, outputs = stim.Ports(d)
	var data []stim.Port
	for _, p := range inputs {
		if p.Type.Width > 64 {
			return nil, nil, fmt.Errorf("bench: input %s is %d bits; the benchmark stimulus drives at most 64", p.Name, p.Type.Width)
		}
		if p.Name != "rst" {
			data = append(data, p)
		}
	}
	for _, p := range outputs {
		if p.Type.Width > 64 {
			return nil, nil, fmt.Errorf("bench: output %s is %d bits; the benchmark compares at most 64", p.Name, p.Type.Width)
		}
	}
	return data, outputs, nil
}

func mask(w int) uint64 { return ^uint64(0) >> (64 - w) }

// formatOutputs is the common spelling of final outputs on every side.
func formatOutputs(vals []uint64, outputs []stim.Port) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprintf("%0*x", (outputs[i].Type.Width+3)/4, v)
	}
	return strings.Join(parts, " ")
}

// writeXorshift writes the first cycles of the stimulus to a stimulus
// file at path, a row at a time.
func writeXorshift(path string, d *hdl.Design, cycles int) error {
	if _, _, err := stimulusPorts(d); err != nil {
		return err
	}
	inputs, _ := stim.Ports(d)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := stim.NewWriter(f, inputs, cycles)
	if err != nil {
		return err
	}
	row := make([]*big.Int, len(inputs))
	for i := range row {
		row[i] = new(big.Int)
	}
	x := xorshift(seed)
	for c := 0; c < cycles; c++ {
		for i, p := range inputs {
			switch {
			case p.Name != "rst":
				row[i].SetUint64(x.next() & mask(p.Type.Width))
			case c < 2:
				row[i].SetInt64(1)
			default:
				row[i].SetInt64(0)
			}
		}
		if err := w.Row(row); err != nil {
			return fmt.Errorf("bench: stimulus file: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("bench: stimulus file: %w", err)
	}
	return f.Close()
}
