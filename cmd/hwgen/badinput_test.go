package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
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
	wide := make([]byte, 4*8*8)
	binary.LittleEndian.PutUint32(wide[4*9:], 200) // element [1 1]
	i4 := npyFile(t, p("i4.npy"), "<i4", false, []int{8, 8}, wide)
	i1 := npyFile(t, p("i1.npy"), "|i1", false, []int{8, 8}, ramp(64))
	checkBad(t, []badCase{
		{"value wider than the elements", []string{"sim", "--m", "8", "--k", "8", "--n", "8", "--in", "a=" + i4},
			[]string{"--in a", i4, "element 9 = 200", "int8 elements (-128..127)"}},
		{"int8 values on 4-bit elements", []string{"sim", "--m", "8", "--k", "8", "--n", "8", "--set", "elem_width=4", "--in", "a=" + i1},
			[]string{"--in a", i1, "int4 elements (-8..7)"}},
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
		y, err := readNPY(filepath.Join(out, "y.npy"), golden.S(8), nil)
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

// Explicit zeros, flags a run would ignore, workloads too large for the
// external memory, wrongly typed --set values: one line, exit status 2,
// before anything runs.
func TestBadSimFlags(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	wl := filepath.Join(dir, "w.json")
	os.WriteFile(wl, []byte(`{"op": "gemm", "fn": "mul"}`), 0o644)
	checkBad(t, []badCase{
		{"zero m", []string{"sim", "--m", "0"}, []string{"--m 0 is not allowed"}},
		{"zero stride", []string{"sim", "--op", "pool", "--stride", "0"}, []string{"--stride 0 is not allowed"}},
		{"zero kernel", []string{"sim", "--op", "conv2d", "--kernel", "0"}, []string{"--kernel 0 is not allowed"}},
		{"negative pad", []string{"sim", "--op", "pool", "--pad=-5"}, []string{"--pad -5 is not allowed"}},
		{"zero engines", []string{"sim", "--engines", "0"}, []string{"--engines 0 is not allowed"}},
		{"planar lanes not dividing the rows", []string{"sim", "--set", "planar_lanes=3"}, []string{"planar_lanes = 3 is not allowed: must be a divisor of rows (16): one of [1 2 4 8 16], or 0 for the default (4 post units: the largest divisor of rows up to 4)"}},
		{"top with out", []string{"sim", "--top", "mac", "--out", filepath.Join(dir, "o")}, []string{"--out does not apply to --top"}},
		{"top with timeline", []string{"sim", "--top", "mac", "--timeline", filepath.Join(dir, "t.json")}, []string{"--timeline does not apply to --top"}},
		{"top with in", []string{"sim", "--top", "mac", "--in", "a=" + plain}, []string{"--in does not apply to --top"}},
		{"top with op", []string{"sim", "--top", "mac", "--op", "gemm"}, []string{"--op does not apply to --top"}},
		{"top with a shape", []string{"sim", "--top", "mac", "--m", "8"}, []string{"--m does not apply to --top"}},
		{"check without top", []string{"sim", "--check"}, []string{"--check applies to --top only"}},
		{"cycles without top", []string{"sim", "--cycles", "10"}, []string{"--cycles applies to --top only"}},
		{"fn with gemm", []string{"sim", "--fn", "add", "--out", filepath.Join(dir, "new")}, []string{"--fn add does not apply to --op gemm"}},
		{"relu with pool", []string{"sim", "--op", "pool", "--relu"}, []string{"--relu does not apply to --op pool"}},
		{"shift with eltwise", []string{"sim", "--op", "eltwise", "--shift", "3"}, []string{"--shift 3 does not apply to --op eltwise"}},
		{"post with eltwise", []string{"sim", "--op", "eltwise", "--post", "sqrt"}, []string{"--post sqrt does not apply to --op eltwise"}},
		{"unknown reduction", []string{"sim", "--op", "reduce", "--fn", "add"}, []string{`fn = "add" is not allowed for reduce: want sum, mean, max, rowsum, rowmean, rowmax`}},
		{"unknown post function", []string{"sim", "--op", "reduce", "--post", "log"}, []string{`post = "log" is not allowed: want none, sqrt, recip`}},
		{"post after a mean", []string{"sim", "--op", "reduce", "--fn", "mean", "--post", "recip"}, []string{`post = "recip" is not allowed with fn = mean`}},
		{"reduce across rows wider than the line buffer", []string{"sim", "--op", "reduce", "--fn", "rowmax", "--w", "300"}, []string{"width w = 300 exceeds line_depth = 64"}},
		{"b of abs", []string{"sim", "--op", "eltwise", "--fn", "abs", "--in", "b=" + plain}, []string{`--in b: eltwise has no tensor "b" (it has a)`}},
		{"field of another op in the file", []string{"sim", "--workload", wl}, []string{wl, "fn = mul does not apply to gemm"}},
		{"too large for the memory", []string{"sim", "--m", "8000", "--k", "8000", "--n", "8000"}, []string{"gemm 8000×8000×8000", "8000000 lines of external memory", "ext_addr_width = 16 gives 65536 lines"}},
		{"a billion rows", []string{"sim", "--m", "1000000000"}, []string{"4000000256 lines of external memory"}},
		{"kernel larger than the input", []string{"sim", "--op", "conv2d", "--h", "4", "--kernel", "7", "--pad", "0"}, []string{"kernel height kh = 7"}},
		{"bool set to a number", []string{"sim", "--set", "zero_skip=1"}, []string{"--set zero_skip=1: zero_skip = 1 is not allowed: want true or false"}},
		{"int set to a word", []string{"sim", "--set", "rows=many"}, []string{"rows = many is not allowed: want an integer"}},
		{"a list given to sim", []string{"sim", "--set", "rows=4,8"}, []string{"rows = 4,8 is not allowed: want an integer", "hwgen explore --set rows=4,8"}},
		{"out is a file", []string{"sim", "--out", plain}, []string{"--out " + plain, "not a directory"}},
		{"timeline is a directory", []string{"sim", "--timeline", dir}, []string{"--timeline " + dir, "is a directory"}},
		{"timeline in a missing directory", []string{"sim", "--timeline", filepath.Join(dir, "no", "t.json")}, []string{"--timeline", "no such file"}},
		{"run out is a file", []string{"run", "--model", mnistModel, "--out", plain}, []string{"--out " + plain, "not a directory"}},
	})
	if runtime.GOOS == "linux" { // /proc takes no new files, even from root
		checkBad(t, []badCase{
			{"out not writable", []string{"sim", "--out", "/proc/hwgen-out"}, []string{"--out /proc/hwgen-out: cannot create the directory"}},
			{"timeline not writable", []string{"sim", "--timeline", "/proc/t.json"}, []string{"--timeline /proc/t.json: cannot write to /proc"}},
		})
	}
	// Nothing was written by the refused runs.
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"plain", "w.json"}, names); diff != "" {
		t.Errorf("files after the refused runs (-want +got):\n%s", diff)
	}
}

// Tensors given as files need no shape flags: the shapes come from them.
func TestSimShapesFromFiles(t *testing.T) {
	dir := t.TempDir()
	a := npyFile(t, filepath.Join(dir, "a.npy"), "|i1", false, []int{8, 16}, ramp(8*16))
	b := npyFile(t, filepath.Join(dir, "b.npy"), "|i1", false, []int{16, 4}, ramp(16*4))
	code, stdout, stderr := capture(t, "sim", "--in", "a="+a, "--in", "b="+b)
	if code != exitOK || !strings.Contains(stdout, "gemm 8×16×4") || !strings.Contains(stdout, "y [8 4]") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// A shape flag that disagrees with the file is still an error.
	checkBad(t, []badCase{{"disagreeing flag", []string{"sim", "--k", "12", "--in", "a=" + a}, []string{"--in a", "has shape [8 16]", "needs [8 12]"}}})
}

func TestBadPPAFlags(t *testing.T) {
	checkBad(t, []badCase{
		{"unknown target", []string{"ppa", "--top", "mac", "--target", "ice40-lp1k"}, []string{"--target", "ice40-lp1k", "ice40-hx8k"}},
		{"no seeds", []string{"ppa", "--top", "mac", "--target", "ice40-hx8k", "--seeds", "0"}, []string{"--seeds", "0", "1..32"}},
		{"negative frequency", []string{"ppa", "--top", "mac", "--freq", "-5"}, []string{"--freq", "-5"}},
		{"unknown design", []string{"ppa", "--top", "nope"}, []string{"nope"}},
		{"bad block field", []string{"ppa", "--top", "systolic", "--set", "rows=0"}, []string{"rows", "0"}},
	})
}

// Random tensors are drawn at the configured element width, so a narrower
// NPU computes on the values the golden model is given.
func TestNarrowElementsPass(t *testing.T) {
	for _, ew := range []string{"4", "6"} {
		code, stdout, stderr := capture(t, "sim", "--m", "8", "--k", "8", "--n", "8", "--set", "elem_width="+ew)
		if code != 0 || !strings.Contains(stdout, "PASS") {
			t.Errorf("elem_width=%s: exit %d\n%s%s", ew, code, stdout, stderr)
		}
	}
}

// A design too big for the device is one line with exit status 1 that
// also says what synthesis counted, so every resource's need is visible.
func TestPPADoesNotFit(t *testing.T) {
	tooltest.Need(t, "yosys")
	code, stdout, stderr := capture(t, "ppa", "--top", "array4", "--target", "ice40-up5k")
	want := "hwgen: ws_array_4x4_s8_s32 does not fit ice40-up5k: needs 16 DSP blocks (SB_MAC16), the device has 8 (over by 8); " +
		"--no-dsp maps the multipliers to LUTs (synthesized: LUT4 "
	if code != exitFailure || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "DSP 16)") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line starting %q, ending with DSP 16)", code, stdout, stderr, exitFailure, want)
	}
}
