package dataset

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// The IDX magic numbers: two zero bytes, the element type (0x08,
// unsigned byte) and the number of dimensions.
const (
	imageMagic = 0x00000803
	labelMagic = 0x00000801
)

// idx is the head of a gzipped IDX file of unsigned bytes.
type idx struct {
	count int    // items the file holds (the first dimension)
	dims  []int  // the other dimensions
	data  []byte // the first n items
}

// maxItemSize bounds the product of an item's dimensions, so that a
// corrupt header cannot ask for an absurd allocation.
const maxItemSize = 1 << 20

// readIDX reads the header of the gzipped IDX file path, which must have
// the given magic number, and its first n items.
func readIDX(path string, magic uint32, n int) (*idx, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	defer z.Close()
	var m uint32
	if err := binary.Read(z, binary.BigEndian, &m); err != nil {
		return nil, fmt.Errorf("dataset: %s: header: %w", path, err)
	}
	if m != magic {
		return nil, fmt.Errorf("dataset: %s: magic number %#08x, want %#08x", path, m, magic)
	}
	sizes := make([]uint32, magic&0xff)
	if err := binary.Read(z, binary.BigEndian, sizes); err != nil {
		return nil, fmt.Errorf("dataset: %s: header: %w", path, err)
	}
	out := &idx{count: int(sizes[0])}
	item := 1
	for _, s := range sizes[1:] {
		if s == 0 || s > maxItemSize || item*int(s) > maxItemSize {
			return nil, fmt.Errorf("dataset: %s: item dimensions %v out of range", path, sizes[1:])
		}
		out.dims = append(out.dims, int(s))
		item *= int(s)
	}
	if n > out.count {
		return nil, fmt.Errorf("dataset: %s holds %d items, %d asked for", path, out.count, n)
	}
	out.data = make([]byte, n*item)
	if _, err := io.ReadFull(z, out.data); err != nil {
		return nil, fmt.Errorf("dataset: %s: item data: %w", path, err)
	}
	return out, nil
}
