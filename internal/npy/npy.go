// Package npy reads NumPy .npy arrays strictly: a header that is cut
// short or malformed, data shorter or longer than the header's shape, or
// a dtype that is not a plain integer or float is an error naming what
// was expected and what was found, never a panic or a silently padded
// array. Either byte order is read, and a Fortran-order (column-major)
// array is returned in C (row-major) order, as every caller wants it.
//
// Writing stays with github.com/sbinet/npyio, whose writer is fine; its
// reader pads truncated data with the last value read and panics on a
// short header, hence this one.
package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxBytes bounds the data an array may declare, so that a header with
// a huge shape is an error, not an allocation that kills the process.
const MaxBytes = 1 << 32

// Header is a .npy file's array description.
type Header struct {
	Descr   string // the dtype as written, e.g. "<i4", "|u1", ">f4"
	Fortran bool   // column-major data
	Shape   []int  // empty: a scalar

	kind  byte // 'i', 'u' or 'f'
	size  int  // bytes per element
	order binary.ByteOrder
}

// Len is the number of elements the shape holds.
func (h Header) Len() int {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

var magic = []byte("\x93NUMPY")

// ReadHeader reads and checks the header; r is then at the data.
func ReadHeader(r io.Reader) (Header, error) {
	var h Header
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return h, errors.New("not a .npy array: shorter than the 8-byte preamble")
	}
	if !bytes.Equal(pre[:6], magic) {
		return h, errors.New("not a .npy array: no \\x93NUMPY magic at the start")
	}
	var n int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return h, errors.New("header cut short: no header length")
		}
		n = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return h, errors.New("header cut short: no header length")
		}
		n = int(binary.LittleEndian.Uint32(b[:]))
		if n > 1<<20 {
			return h, fmt.Errorf("header length %d is not allowed: at most %d bytes", n, 1<<20)
		}
	default:
		return h, fmt.Errorf("format version %d.%d is not allowed: want 1.0, 2.0 or 3.0", pre[6], pre[7])
	}
	buf := make([]byte, n)
	if got, err := io.ReadFull(r, buf); err != nil {
		return h, fmt.Errorf("header cut short: %d bytes declared, %d found", n, got)
	}
	if err := h.parse(string(buf)); err != nil {
		return h, fmt.Errorf("header: %w", err)
	}
	return h, nil
}

// parse reads the header's Python dict literal:
// {'descr': '<i1', 'fortran_order': False, 'shape': (64, 64), }
func (h *Header) parse(s string) error {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return fmt.Errorf("%q is not a dictionary", clip(s))
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	seen := map[string]bool{}
	for s != "" {
		key, rest, err := quoted(s)
		if err != nil {
			return err
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, ":") {
			return fmt.Errorf("no ':' after key %q", key)
		}
		rest = strings.TrimSpace(rest[1:])
		switch key {
		case "descr":
			h.Descr, rest, err = quoted(rest)
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "True"):
				h.Fortran, rest = true, rest[4:]
			case strings.HasPrefix(rest, "False"):
				h.Fortran, rest = false, rest[5:]
			default:
				err = fmt.Errorf("fortran_order = %q is not allowed: want True or False", clip(rest))
			}
		case "shape":
			h.Shape, rest, err = tuple(rest)
		default:
			return fmt.Errorf("key %q is not allowed: want descr, fortran_order and shape", key)
		}
		if err != nil {
			return err
		}
		seen[key] = true
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, ",") {
			rest = strings.TrimSpace(rest[1:])
		} else if rest != "" {
			return fmt.Errorf("no ',' after %s", key)
		}
		s = rest
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fmt.Errorf("no %s", k)
		}
	}
	return h.dtype()
}

// dtype checks Descr: a byte-order mark and a plain integer or float.
func (h *Header) dtype() error {
	d := h.Descr
	bad := fmt.Errorf("dtype %q is not allowed: want an integer (i1, i2, i4, i8, u1, u2, u4) or float (f4, f8) with a byte order (<, >, | or =)", d)
	if len(d) < 2 {
		return bad
	}
	h.order = binary.LittleEndian
	switch d[0] {
	case '<', '|', '=':
		d = d[1:]
	case '>':
		h.order, d = binary.BigEndian, d[1:]
	}
	switch d {
	case "i1", "i2", "i4", "i8", "u1", "u2", "u4", "f4", "f8":
		h.kind = d[0]
		h.size = int(d[1] - '0')
		return nil
	}
	return bad
}

// quoted reads a '…' or "…" string at the start of s.
func quoted(s string) (string, string, error) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", "", fmt.Errorf("%q: want a quoted string", clip(s))
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", "", fmt.Errorf("%q: unterminated string", clip(s))
	}
	return s[1 : 1+end], s[2+end:], nil
}

// tuple reads a shape tuple (a, b, ) at the start of s.
func tuple(s string) ([]int, string, error) {
	if !strings.HasPrefix(s, "(") {
		return nil, "", fmt.Errorf("shape %q: want a tuple", clip(s))
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return nil, "", fmt.Errorf("shape %q: no ')'", clip(s))
	}
	shape := []int{}
	n := 1
	for _, tok := range strings.Split(s[1:end], ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		d, err := strconv.Atoi(tok)
		if err != nil || d < 0 {
			return nil, "", fmt.Errorf("shape dimension %q is not allowed: want a non-negative integer", tok)
		}
		if d > 0 && n > MaxBytes/d {
			return nil, "", fmt.Errorf("shape %s is not allowed: more than %d elements", s[:end+1], MaxBytes)
		}
		n *= d
		shape = append(shape, d)
	}
	return shape, s[end+1:], nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// DataBytes is the size of the data the header declares; the shape was
// checked against MaxBytes when the header was parsed.
func (h Header) DataBytes() int64 { return int64(h.Len()) * int64(h.size) }

// checkBytes refuses data past MaxBytes.
func (h Header) checkBytes() error {
	if h.DataBytes() > MaxBytes {
		return fmt.Errorf("shape %v is not allowed: more than %d bytes", h.Shape, int64(MaxBytes))
	}
	return nil
}

// chunk is how much data is read at a time: the elements are converted
// chunk by chunk, so a file is never held twice (raw bytes and values).
const chunk = 1 << 16

// decode reads exactly the elements of the header into put (element i
// from its bytes), or names how many it found. It allocates nothing in
// proportion to the file beyond what the caller's put stores.
func (h Header) decode(r io.Reader, put func(i int, e []byte)) error {
	n := h.Len()
	want := h.DataBytes()
	buf := make([]byte, chunk-chunk%h.size)
	var got int64
	for got < want {
		k, err := io.ReadFull(r, buf[:min(int64(len(buf)), want-got)])
		for j := 0; j+h.size <= k; j += h.size {
			put(int((got+int64(j))/int64(h.size)), buf[j:j+h.size])
		}
		got += int64(k)
		if err != nil {
			break
		}
	}
	extra := ""
	if got == want {
		var one [1]byte
		if k, _ := io.ReadFull(r, one[:]); k == 0 {
			return nil
		}
		extra = " or more"
		got++
	}
	return fmt.Errorf("shape %v needs %d elements (%d bytes of %s); the file holds %d bytes%s after the header (%d elements)",
		h.Shape, n, want, h.Descr, got, extra, got/int64(h.size))
}

// ReadInts reads an integer array in C order.
func ReadInts(r io.Reader) (Header, []int64, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return h, nil, err
	}
	v, err := h.Ints(r)
	return h, v, err
}

// Ints reads the data of an integer array whose header was read from r,
// in C order. The caller may check the shape (and the memory its int64s
// take: 8 bytes an element) before calling it.
func (h Header) Ints(r io.Reader) ([]int64, error) {
	if h.kind == 'f' {
		return nil, fmt.Errorf("dtype %s is not allowed: want an integer array", h.Descr)
	}
	if err := h.checkBytes(); err != nil {
		return nil, err
	}
	v := make([]int64, h.Len())
	err := h.decode(bufio.NewReader(r), func(i int, e []byte) {
		switch h.size {
		case 1:
			v[i] = int64(e[0])
			if h.kind == 'i' {
				v[i] = int64(int8(e[0]))
			}
		case 2:
			u := h.order.Uint16(e)
			v[i] = int64(u)
			if h.kind == 'i' {
				v[i] = int64(int16(u))
			}
		case 4:
			u := h.order.Uint32(e)
			v[i] = int64(u)
			if h.kind == 'i' {
				v[i] = int64(int32(u))
			}
		case 8: // only i8: u8 is refused by dtype
			v[i] = int64(h.order.Uint64(e))
		}
	})
	if err != nil {
		return nil, err
	}
	return cOrder(h, v), nil
}

// ReadFloat32s reads a float32 array in C order.
func ReadFloat32s(r io.Reader) (Header, []float32, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return h, nil, err
	}
	v, err := h.Float32s(r)
	return h, v, err
}

// Float32s reads the data of a float32 array whose header was read from
// r, in C order.
func (h Header) Float32s(r io.Reader) ([]float32, error) {
	if h.kind != 'f' || h.size != 4 {
		return nil, fmt.Errorf("dtype %s is not allowed: want float32 (<f4 or >f4)", h.Descr)
	}
	if err := h.checkBytes(); err != nil {
		return nil, err
	}
	v := make([]float32, h.Len())
	err := h.decode(bufio.NewReader(r), func(i int, e []byte) {
		v[i] = math.Float32frombits(h.order.Uint32(e))
	})
	if err != nil {
		return nil, err
	}
	return cOrder(h, v), nil
}

// cOrder returns v, read in the header's order, in row-major order.
func cOrder[T any](h Header, v []T) []T {
	if !h.Fortran || len(h.Shape) < 2 {
		return v
	}
	// Fortran order: the first index varies fastest. Walk the C-order
	// index and compute its column-major offset.
	out := make([]T, len(v))
	idx := make([]int, len(h.Shape))
	for i := range out {
		off, stride := 0, 1
		for d := range h.Shape {
			off += idx[d] * stride
			stride *= h.Shape[d]
		}
		out[i] = v[off]
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < h.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}
