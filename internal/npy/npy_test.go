package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbinet/npyio/npy"
)

// file builds a .npy file from a header dict and raw data, padding the
// header as NumPy does.
func file(dict string, data []byte) []byte {
	h := dict + " "
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func dict(descr string, fortran bool, shape string) string {
	f := "False"
	if fortran {
		f = "True"
	}
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, f, shape)
}

func TestReadInts(t *testing.T) {
	be32 := func(v ...int32) []byte {
		var b bytes.Buffer
		binary.Write(&b, binary.BigEndian, v)
		return b.Bytes()
	}
	le16 := func(v ...int16) []byte {
		var b bytes.Buffer
		binary.Write(&b, binary.LittleEndian, v)
		return b.Bytes()
	}
	cases := []struct {
		name  string
		file  []byte
		shape []int
		want  []int64
		err   string
	}{
		{"int8", file(dict("|i1", false, "(2, 3)"), []byte{1, 2, 3, 0xff, 0x80, 0x7f}), []int{2, 3}, []int64{1, 2, 3, -1, -128, 127}, ""},
		{"uint8", file(dict("|u1", false, "(3,)"), []byte{0, 0x80, 0xff}), []int{3}, []int64{0, 128, 255}, ""},
		{"big-endian int1", file(dict(">i1", false, "(2,)"), []byte{0xfe, 5}), []int{2}, []int64{-2, 5}, ""},
		{"big-endian int32", file(dict(">i4", false, "(2,)"), be32(-70000, 3)), []int{2}, []int64{-70000, 3}, ""},
		{"little-endian int16", file(dict("<i2", false, "(2,)"), le16(-300, 300)), []int{2}, []int64{-300, 300}, ""},
		// Column-major 2×3 [[1 2 3] [4 5 6]] is stored 1 4 2 5 3 6.
		{"fortran order", file(dict("|i1", true, "(2, 3)"), []byte{1, 4, 2, 5, 3, 6}), []int{2, 3}, []int64{1, 2, 3, 4, 5, 6}, ""},
		{"truncated data", file(dict("|i1", false, "(2, 3)"), []byte{1, 2, 3}), nil, nil, "needs 6 elements (6 bytes of |i1); the file holds 3 bytes after the header (3 elements)"},
		{"header only", file(dict("|i1", false, "(64, 64)"), nil), nil, nil, "needs 4096 elements"},
		{"trailing data", file(dict("|i1", false, "(2,)"), []byte{1, 2, 3}), nil, nil, "the file holds 3 bytes or more"},
		{"cut header", file(dict("|i1", false, "(2,)"), nil)[:40], nil, nil, "header cut short: 118 bytes declared, 30 found"},
		{"empty file", nil, nil, nil, "shorter than the 8-byte preamble"},
		{"not npy", []byte("hello, world"), nil, nil, "no \\x93NUMPY magic"},
		{"float", file(dict("<f4", false, "(1,)"), []byte{0, 0, 0, 0}), nil, nil, "dtype <f4 is not allowed: want an integer array"},
		{"object dtype", file(dict("|O", false, "(1,)"), []byte{0}), nil, nil, `dtype "|O" is not allowed`},
		{"huge shape", file(dict("|i1", false, "(100000, 100000, 100000)"), nil), nil, nil, "more than 4294967296 elements"},
		{"negative dimension", file(dict("|i1", false, "(-1,)"), nil), nil, nil, `shape dimension "-1" is not allowed`},
		{"missing key", file("{'descr': '|i1', 'shape': (1,), }", []byte{1}), nil, nil, "no fortran_order"},
		{"bad version", append([]byte("\x93NUMPY\x09\x00"), 0, 0), nil, nil, "format version 9.0 is not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, got, err := ReadInts(bytes.NewReader(tc.file))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.shape, h.Shape); diff != "" {
				t.Errorf("shape (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadsNpyioFiles reads files written by another implementation.
func TestReadsNpyioFiles(t *testing.T) {
	var b bytes.Buffer
	if err := npy.Write(&b, [2][3]int32{{1, -2, 3}, {4, 5, -60000}}); err != nil {
		t.Fatal(err)
	}
	h, got, err := ReadInts(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 3}, h.Shape); diff != "" {
		t.Errorf("shape (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{1, -2, 3, 4, 5, -60000}, got); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	b.Reset()
	if err := npy.Write(&b, [2]float32{1.5, -2}); err != nil {
		t.Fatal(err)
	}
	_, f, err := ReadFloat32s(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float32{1.5, -2}, f); diff != "" {
		t.Errorf("floats (-want +got):\n%s", diff)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(file(dict("|i1", false, "(2, 3)"), []byte{1, 2, 3, 4, 5, 6}))
	f.Add(file(dict(">i4", true, "(2, 1)"), []byte{0, 0, 0, 1, 0, 0, 0, 2}))
	f.Add(file(dict("<f4", false, "(1,)"), []byte{0, 0, 0x80, 0x3f}))
	f.Add(file(dict("|i1", false, "()"), []byte{7}))
	f.Add(file(dict("|i1", false, "(64, 64)"), nil)[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		h, v, err := ReadInts(bytes.NewReader(b))
		if err == nil && len(v) != h.Len() {
			t.Fatalf("%d elements for shape %v", len(v), h.Shape)
		}
		h, fv, err := ReadFloat32s(bytes.NewReader(b))
		if err == nil && len(fv) != h.Len() {
			t.Fatalf("%d elements for shape %v", len(fv), h.Shape)
		}
	})
}
