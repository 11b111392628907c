package golden

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustRows(t *testing.T, rows [][]int64) *Tensor {
	t.Helper()
	m, err := FromRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestIntWrap(t *testing.T) {
	cases := []struct {
		f        Int
		in, want int64
	}{
		{S(8), 127, 127},
		{S(8), 128, -128},
		{S(8), -129, 127},
		{S(8), 16384, 0},
		{U(8), 256, 0},
		{U(8), -1, 255},
		{S(32), 1 << 31, math.MinInt32},
		{U(32), 1<<32 + 5, 5},
		{S(64), math.MinInt64, math.MinInt64},
		{U(1), 3, 1},
		{S(1), 1, -1},
	}
	for _, tc := range cases {
		if got := tc.f.Wrap(tc.in); got != tc.want {
			t.Errorf("%s.Wrap(%d) = %d, want %d", tc.f, tc.in, got, tc.want)
		}
	}
	ranges := []struct {
		f        Int
		min, max int64
	}{{S(8), -128, 127}, {U(8), 0, 255}, {S(4), -8, 7}, {U(16), 0, 65535}, {S(64), math.MinInt64, math.MaxInt64}}
	for _, r := range ranges {
		if r.f.Min() != r.min || r.f.Max() != r.max {
			t.Errorf("%s range %d..%d, want %d..%d", r.f, r.f.Min(), r.f.Max(), r.min, r.max)
		}
		if !r.f.Fits(r.min) || !r.f.Fits(r.max) || (r.f.Width < 64 && (r.f.Fits(r.min-1) || r.f.Fits(r.max+1))) {
			t.Errorf("%s.Fits disagrees with its range", r.f)
		}
	}
}

func TestGEMM(t *testing.T) {
	x := mustRows(t, [][]int64{{1, 2, 3}, {-4, 5, -6}})
	w := mustRows(t, [][]int64{{7, 8}, {9, 10}, {11, -12}})
	cases := []struct {
		name string
		acc  Int
		c    *Tensor
		want [][]int64
	}{
		{"int32", S(32), nil, [][]int64{{58, -8}, {-49, 90}}},
		{"wraps to int8", S(8), nil, [][]int64{{58, -8}, {-49, 90}}},
		{"wraps to int6", S(6), nil, [][]int64{{-6, -8}, {15, 26}}},
		{"accumulates", S(32), mustRows(t, [][]int64{{100, 0}, {0, -100}}), [][]int64{{158, -8}, {-49, -10}}},
		{"unsigned wraps", U(4), nil, [][]int64{{10, 8}, {15, 10}}},
	}
	for _, tc := range cases {
		got, err := GEMMAcc(tc.c, x, w, tc.acc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := cmp.Diff(tc.want, got.Rows()); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	// -128·-128 summed 128 times fills 22 bits of an int32 exactly.
	ext := New(1, 128)
	ew := New(128, 1)
	for k := 0; k < 128; k++ {
		ext.Data[k], ew.Data[k] = -128, -128
	}
	got, err := GEMM(ext, ew, S(32))
	if err != nil || got.Data[0] != 128*16384 {
		t.Errorf("extreme GEMM = %v, %v; want %d", got, err, 128*16384)
	}
}

func TestGEMMShapeErrors(t *testing.T) {
	a := New(2, 3)
	cases := []struct {
		name    string
		c, x, w *Tensor
		acc     Int
		want    string
	}{
		{"inner", nil, a, New(2, 3), S(32), "inner dimensions differ"},
		{"rank", nil, New(2, 3, 1), New(3, 1), S(32), "want a matrix"},
		{"nil", nil, nil, a, S(32), "x is nil"},
		{"c shape", New(3, 3), a, New(3, 2), S(32), "accumulates onto c [3x3], the product is [2x2]"},
		{"acc width", nil, a, New(3, 2), S(65), "accumulator width 65"},
	}
	for _, tc := range cases {
		_, err := GEMMAcc(tc.c, tc.x, tc.w, tc.acc)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := FromRows([][]int64{{1, 2}, {3}}); err == nil {
		t.Errorf("ragged rows accepted")
	}
}

func TestTranspose(t *testing.T) {
	a := mustRows(t, [][]int64{{1, 2, 3}, {4, 5, 6}})
	got, err := Transpose(a)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]int64{{1, 4}, {2, 5}, {3, 6}}, got.Rows()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	back, _ := Transpose(got)
	if d := cmp.Diff(a, back); d != "" {
		t.Errorf("transposing twice changed the matrix:\n%s", d)
	}
	if _, err := Transpose(New(4)); err == nil {
		t.Errorf("transpose of a vector accepted")
	}
}

func TestTensorIndexing(t *testing.T) {
	x := New(2, 3, 4)
	x.Set(7, 1, 2, 3)
	if x.Data[23] != 7 || x.At(1, 2, 3) != 7 {
		t.Errorf("row-major offset wrong: %v", x.Data)
	}
	c := x.Clone()
	c.Set(1, 0, 0, 0)
	if x.At(0, 0, 0) != 0 {
		t.Errorf("Clone shares data")
	}
	if err := mustRows(t, [][]int64{{1, 300}}).CheckFits(S(8)); err == nil || !strings.Contains(err.Error(), "element 1 = 300") {
		t.Errorf("CheckFits: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("At outside the shape did not panic")
		}
	}()
	x.At(2, 0, 0)
}
