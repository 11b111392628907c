package budget

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// StreamMax bounds what is read from a file that has no size to check
// first (a FIFO, /dev/zero, a terminal): it is read only up to this
// many bytes, so that an endless stream is refused in a fraction of a
// second and well under a gigabyte.
const StreamMax = 64 << 20

// Sizes of the files hwgen reads whole, by kind: a JSON request is a few
// kilobytes, a result file a few megabytes per million items; a model
// is bounded by protobuf's 2 GiB and the memory budget.
const (
	JSONMax   = 16 << 20
	ResultMax = 1 << 30
	ModelMax  = 2 << 30
)

// FileError is a file over its size limit.
type FileError struct {
	Path  string
	What  string // e.g. "an ONNX model"
	Size  int64  // -1: a stream, read past Max
	Max   int64
	Extra string // why Max is what it is
}

func (e *FileError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: not a regular file and longer than %s, more than %s may be (%s)", e.Path, Format(e.Max), e.What, e.Extra)
	}
	return fmt.Sprintf("%s: %s is too large for %s: at most %s (%s)", e.Path, Format(e.Size), e.What, Format(e.Max), e.Extra)
}

// MaxFor is max, lowered to a quarter of the memory limit: a file is
// held while it is decoded into a copy or two of its content.
func MaxFor(max int64) (int64, string) {
	lim, src := Limit()
	if q := lim / 4; q < max {
		return q, fmt.Sprintf("a quarter of the memory limit of %s, %s", Format(lim), src)
	}
	return max, "the format's limit"
}

// Open opens path for reading and checks its size against max (see
// MaxFor) before a byte is read: a regular file by its size, anything
// else (a FIFO, a device) by reading it through a LimitReader of at most
// StreamMax bytes. The returned reader yields at most max bytes.
func Open(path, what string, max int64) (io.ReadCloser, int64, error) {
	lim, why := MaxFor(max)
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	}
	if st.Mode().IsRegular() {
		if st.Size() > lim {
			f.Close()
			return nil, 0, &FileError{Path: path, What: what, Size: st.Size(), Max: lim, Extra: why}
		}
		return f, st.Size(), nil
	}
	// A stream: buffer it, up to StreamMax, so that callers see a whole
	// file or a refusal.
	lim = min(lim, StreamMax)
	b, err := io.ReadAll(io.LimitReader(f, lim+1))
	f.Close()
	if err != nil {
		return nil, 0, err
	}
	if int64(len(b)) > lim {
		return nil, 0, &FileError{Path: path, What: what, Size: -1, Max: lim, Extra: "a stream is read whole before it is parsed"}
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

// ReadFile reads the whole file at path, refused by Open's checks when
// it is larger than max.
func ReadFile(path, what string, max int64) ([]byte, error) {
	r, size, err := Open(path, what, max)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, 0, size+1)
	buf := bytes.NewBuffer(b)
	if _, err := buf.ReadFrom(io.LimitReader(r, size+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > size { // grew while read
		return nil, &FileError{Path: path, What: what, Size: int64(buf.Len()), Max: size, Extra: "the file grew while it was read"}
	}
	return buf.Bytes(), nil
}
