package budget

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSize(t *testing.T) {
	got := map[string]int64{}
	for _, s := range []string{"512M", "8G", "8GiB", "1.5g", "2T", "1048576", "64MB"} {
		n, err := ParseSize(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		got[s] = n
	}
	want := map[string]int64{"512M": 512 << 20, "8G": 8 << 30, "8GiB": 8 << 30, "1.5g": 3 << 29, "2T": 2 << 40, "1048576": 1 << 20, "64MB": 64 << 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sizes (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "lots", "-1G", "100", "NaNG", "1e30"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The default is half the machine's memory, never zero.
func TestDefault(t *testing.T) {
	n, src := Default()
	if n <= 0 || !strings.Contains(src, "--max-memory") {
		t.Errorf("Default() = %d, %q", n, src)
	}
	SetLimit(1 << 30)
	defer SetLimit(0)
	if n, src := Limit(); n != 1<<30 || src != "--max-memory" {
		t.Errorf("Limit() = %d, %q after SetLimit", n, src)
	}
}

// An estimate over the limit names the largest part and how much
// smaller would fit; hostile sizes (past int64) do not wrap.
func TestEstimate(t *testing.T) {
	SetLimit(1 << 30)
	defer SetLimit(0)
	e := Estimate{Subject: "gemm"}
	e.Add("input a", 1e6, 128)
	if err := e.Check(); err != nil {
		t.Errorf("128 MB under 1 GiB: %v", err)
	}
	e.Add("output y [4e9 4e9]", 1.6e19, 128)
	err := e.Check()
	var be *Error
	if !errors.As(err, &be) || !Is(err) {
		t.Fatalf("no *Error: %v", err)
	}
	for _, w := range []string{"gemm needs about", "mostly output y [4e9 4e9]", "the limit is 1.1 GB (--max-memory)", "smaller"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
}

// Files are refused by their size before they are read, streams past
// StreamMax, and a file within the limit is read whole.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	os.WriteFile(small, []byte(`{"op": "gemm"}`), 0o644)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, nil, 0o644)
	os.Truncate(big, JSONMax+1)
	if b, err := ReadFile(small, "a workload", JSONMax); err != nil || string(b) != `{"op": "gemm"}` {
		t.Errorf("small: %q, %v", b, err)
	}
	for path, want := range map[string]string{big: "is too large for a workload: at most 16.8 MB", "/dev/zero": "not a regular file and longer than"} {
		_, err := ReadFile(path, "a workload", JSONMax)
		if !Is(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want a *FileError saying %q", path, err, want)
		}
	}
	if _, err := ReadFile(dir, "a workload", JSONMax); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}
