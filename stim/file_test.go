package stim

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

func words(t *testing.T, b []byte) []uint32 {
	t.Helper()
	out := make([]uint32, len(b)/4)
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func row(vs ...string) []*big.Int {
	out := make([]*big.Int, len(vs))
	for i, v := range vs {
		out[i], _ = new(big.Int).SetString(v, 16)
	}
	return out
}

// A record is written only where an input changes, with as many words as
// the input's width needs.
func TestWriteRecordsChanges(t *testing.T) {
	st := &Stimulus{
		Inputs: []Port{{"a", hdl.UInt(8)}, {"b", hdl.UInt(40)}, {"c", hdl.UInt(70)}},
		Rows: [][]*big.Int{
			row("0", "0", "0"),
			row("5", "200000001", "300000000000000003"),
			row("5", "200000001", "300000000000000003"),
			row("0", "200000001", "300000000000000003"),
		},
	}
	var buf bytes.Buffer
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	want := []uint32{
		FileMagic, FileVersion, 3, 8, 40, 70, 4,
		1, 0, 5,
		1, 1, 1, 2,
		1, 2, 3, 0, 0x30,
		3, 0, 0,
	}
	if diff := cmp.Diff(want, words(t, buf.Bytes())); diff != "" {
		t.Errorf("stimulus file words (-want +got):\n%s", diff)
	}
}

func TestWriterErrors(t *testing.T) {
	inputs := []Port{{"a", hdl.UInt(4)}}
	tests := []struct {
		name   string
		cycles int
		rows   [][]*big.Int
		want   string
	}{
		{"value too wide", 1, [][]*big.Int{row("10")}, "does not fit input a"},
		{"too few rows", 2, [][]*big.Int{row("1")}, "1 of the 2 cycles"},
		{"too many rows", 1, [][]*big.Int{row("1"), row("2")}, "more than the 1 cycles"},
		{"row of the wrong length", 1, [][]*big.Int{row("1", "2")}, "2 values for 1 inputs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(new(bytes.Buffer), inputs, tc.cycles)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.rows {
				if err = w.Row(r); err != nil {
					break
				}
			}
			if err == nil {
				err = w.Flush()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
