package stim

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
)

// The stimulus file is what the Verilator harness (package verify) replays,
// so that a new stimulus on the same design needs no new build. It is a
// sequence of little-endian 32-bit words:
//
//	FileMagic, FileVersion, the number of inputs, each input's width in bits,
//	the number of cycles,
//	then one record per change, in cycle order: the cycle, the input's
//	index, its value in (width+31)/32 words, least significant first.
//
// Every input starts at 0 and holds its value until it changes, so a
// record is written only where a value differs from the cycle before.
const (
	FileMagic   = 0x54534768 // "hGST"
	FileVersion = 1
)

// Writer writes a stimulus file one cycle at a time, so a long stimulus
// need not be held in memory.
type Writer struct {
	w      *bufio.Writer
	inputs []Port
	cycles int
	row    int
	prev   []*big.Int
}

// NewWriter writes the header of a stimulus of the given length for
// inputs to w. The caller writes exactly cycles rows, then calls Flush.
func NewWriter(w io.Writer, inputs []Port, cycles int) (*Writer, error) {
	if cycles < 0 || cycles > math.MaxUint32 {
		return nil, fmt.Errorf("stimulus file: %d cycles do not fit", cycles)
	}
	sw := &Writer{w: bufio.NewWriterSize(w, 1<<16), inputs: inputs, cycles: cycles, prev: make([]*big.Int, len(inputs))}
	sw.words(FileMagic, FileVersion, uint32(len(inputs)))
	for i, p := range inputs {
		sw.words(uint32(p.Type.Width))
		sw.prev[i] = new(big.Int)
	}
	sw.words(uint32(cycles))
	return sw, nil
}

// words buffers ws; bufio keeps the first write error for Flush.
func (sw *Writer) words(ws ...uint32) {
	var b [4]byte
	for _, x := range ws {
		binary.LittleEndian.PutUint32(b[:], x)
		sw.w.Write(b[:])
	}
}

// Row writes the next cycle's values, one bit pattern per input. The
// values are copied: the caller may reuse them.
func (sw *Writer) Row(vals []*big.Int) error {
	if sw.row >= sw.cycles {
		return fmt.Errorf("stimulus file: more than the %d cycles announced", sw.cycles)
	}
	if len(vals) != len(sw.inputs) {
		return fmt.Errorf("stimulus file: cycle %d has %d values for %d inputs", sw.row, len(vals), len(sw.inputs))
	}
	for i, v := range vals {
		if v.Cmp(sw.prev[i]) == 0 {
			continue
		}
		p := sw.inputs[i]
		if v.Sign() < 0 || v.BitLen() > p.Type.Width {
			return fmt.Errorf("stimulus file: cycle %d: value %s does not fit input %s (%s)", sw.row, v, p.Name, p.Type)
		}
		sw.prev[i].Set(v)
		sw.words(uint32(sw.row), uint32(i))
		if p.Type.Width <= 64 {
			u := v.Uint64()
			sw.words(uint32(u))
			if p.Type.Width > 32 {
				sw.words(uint32(u >> 32))
			}
			continue
		}
		x := new(big.Int).Set(v)
		for n := (p.Type.Width + 31) / 32; n > 0; n-- {
			sw.words(uint32(x.Uint64()))
			x.Rsh(x, 32)
		}
	}
	sw.row++
	return nil
}

// Flush checks that every announced cycle was written and flushes.
func (sw *Writer) Flush() error {
	if sw.row != sw.cycles {
		return fmt.Errorf("stimulus file: %d of the %d cycles announced written", sw.row, sw.cycles)
	}
	return sw.w.Flush()
}

// WriteFile writes st as a stimulus file at path.
func WriteFile(path string, st *Stimulus) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("stimulus file: %w", err)
	}
	if err := Write(f, st); err != nil {
		f.Close()
		return fmt.Errorf("stimulus file %s: %w", path, err)
	}
	return f.Close()
}

// Write writes st in the stimulus file format to w.
func Write(w io.Writer, st *Stimulus) error {
	sw, err := NewWriter(w, st.Inputs, st.Cycles())
	if err != nil {
		return err
	}
	for _, row := range st.Rows {
		if err := sw.Row(row); err != nil {
			return err
		}
	}
	return sw.Flush()
}
