package isa_test

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/isa"
)

// descriptorOf reads a descriptor from fuzz bytes: engine, op, then the
// operands and param words as little-endian uint64s (missing bytes 0).
func descriptorOf(b []byte) isa.Descriptor {
	word := func(i int) uint64 {
		var w [8]byte
		if off := 2 + 8*i; off < len(b) {
			copy(w[:], b[off:])
		}
		return binary.LittleEndian.Uint64(w[:])
	}
	var d isa.Descriptor
	if len(b) > 0 {
		d.Engine = isa.Engine(b[0])
	}
	if len(b) > 1 {
		d.Op = isa.Op(b[1])
	}
	d.Src, d.Aux, d.Dst, d.D0, d.D1, d.D2 = word(0), word(1), word(2), word(3), word(4), word(5)
	for i := 6; 2+8*i < len(b); i++ {
		d.Param = append(d.Param, word(i))
	}
	return d
}

// Decode takes any descriptor without panicking, and a task it decodes
// that encodes again decodes to itself.
func FuzzDecode(f *testing.F) {
	c := codec(2)
	seed := func(d isa.Descriptor) []byte {
		b := []byte{byte(d.Engine), byte(d.Op)}
		for _, w := range append([]uint64{d.Src, d.Aux, d.Dst, d.D0, d.D1, d.D2}, d.Param...) {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		return b
	}
	for _, task := range []isa.Task{
		isa.Load{Ext: 5, State: 7, Lines: 3, Rows: 16, Stride: 1},
		isa.Conv{Src: 1, Weights: 2, Psum: 3, H: 8, W: 8, Tiles: 1, KH: 3, KW: 3, Stride: 1, PadH: 1, PadW: 1, OH: 8, OW: 8},
		isa.Transpose{Src: 4, Psum: 0, Rows: 16, Cols: 16},
	} {
		d, err := c.Encode(task)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed(d))
	}
	f.Add([]byte{9, 200})                         // no such engine
	f.Add([]byte{byte(isa.NE), byte(isa.NEGEMM)}) // no param words
	f.Add([]byte{byte(isa.Planar), 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := descriptorOf(b)
		task, err := c.Decode(d)
		if err != nil {
			return
		}
		again, err := c.Encode(task)
		if err != nil {
			return // out of the fields' ranges: the encoder refuses it
		}
		checkOperands(t, again)
		back, err := c.Decode(again)
		if err != nil {
			t.Fatalf("%+v: encoded, then not decoded: %v", task, err)
		}
		if diff := cmp.Diff(task, back); diff != "" {
			t.Fatalf("decode(encode(task)) differs (-task +back):\n%s", diff)
		}
	})
}
