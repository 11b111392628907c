package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
)

// npyFile writes a .npy file from its header fields and raw data, as
// NumPy lays it out (the header padded to 64 bytes, a newline last).
func npyFile(t *testing.T, path, descr string, fortran bool, shape []int, data []byte) string {
	t.Helper()
	dims := ""
	for _, d := range shape {
		dims += fmt.Sprintf("%d, ", d)
	}
	f := map[bool]string{false: "False", true: "True"}[fortran]
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': (%s), } ", descr, f, strings.TrimSuffix(dims, " "))
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)+1))
	b.WriteString(h + "\n")
	b.Write(data)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ramp is n int8 values that differ, so that a transposed or shifted
// read gives another result.
func ramp(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*37 + 11)
	}
	return b
}

// badCase is one bad command line: its exit status and the words its one
// error line must hold.
type badCase struct {
	name string
	args []string
	want []string
}

// checkBad runs each case: exit status 2, nothing but one line on
// standard error, naming what it must.
func checkBad(t *testing.T, cases []badCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := capture(t, tc.args...)
			if code != exitUsage || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("hwgen %s: exit %d, stderr %q; want exit 2 and one line", strings.Join(tc.args, " "), code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("%q does not name %q", stderr, w)
				}
			}
		})
	}
}

func TestBadNPYInputs(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	trunc := npyFile(t, p("trunc.npy"), "|i1", false, []int{64, 64}, ramp(100))
	header := npyFile(t, p("header.npy"), "|i1", false, []int{64, 64}, nil)
	k99 := npyFile(t, p("k99.npy"), "|i1", false, []int{64, 99}, ramp(64*64))
	full := npyFile(t, p("full.npy"), "|i1", false, []int{64, 64}, ramp(64*64))
	cut := p("cut.npy")
	b, _ := os.ReadFile(full)
	os.WriteFile(cut, b[:40], 0o644)
	checkBad(t, []badCase{
		{"truncated data", []string{"sim", "--in", "a=" + trunc}, []string{"--in a", trunc, "needs 4096 elements", "100 elements"}},
		{"header only", []string{"sim", "--in", "a=" + header}, []string{header, "needs 4096 elements", "0 elements"}},
		{"shape larger than the data", []string{"sim", "--k", "99", "--in", "a=" + k99}, []string{k99, "needs 6336 elements", "4096 elements"}},
		{"cut header", []string{"sim", "--in", "a=" + cut}, []string{cut, "header cut short"}},
	})
}

// A Fortran-order or big-endian file holds the same matrix as a C-order
// little-endian one: the results are the same.
func TestNPYOrders(t *testing.T) {
	dir := t.TempDir()
	const m, k = 8, 16
	c := ramp(m * k)
	fortran := make([]byte, len(c))
	be := make([]byte, 4*len(c))
	for i := range m {
		for j := range k {
			fortran[j*m+i] = c[i*k+j]
			binary.BigEndian.PutUint32(be[4*(i*k+j):], uint32(int32(int8(c[i*k+j]))))
		}
	}
	files := map[string]string{
		"c":       npyFile(t, filepath.Join(dir, "c.npy"), "|i1", false, []int{m, k}, c),
		"fortran": npyFile(t, filepath.Join(dir, "f.npy"), "|i1", true, []int{m, k}, fortran),
		">i4":     npyFile(t, filepath.Join(dir, "be.npy"), ">i4", false, []int{m, k}, be),
		">i1":     npyFile(t, filepath.Join(dir, "be1.npy"), ">i1", false, []int{m, k}, c),
	}
	var want *golden.Tensor
	for _, name := range []string{"c", "fortran", ">i4", ">i1"} {
		out := filepath.Join(dir, "out-"+strings.Trim(name, "<>"))
		if code, _, stderr := capture(t, "sim", "--m", "8", "--k", "16", "--n", "8", "--in", "a="+files[name], "--out", out); code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		y, err := readNPY(filepath.Join(out, "y.npy"), golden.S(8))
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = y
			continue
		}
		if diff := cmp.Diff(want, y); diff != "" {
			t.Errorf("%s order: y differs from the C-order run (-c +%s):\n%s", name, name, diff)
		}
	}
}
