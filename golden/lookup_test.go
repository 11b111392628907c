package golden

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Entry k of a table is the result for the value min + k: a signed
// type's table starts at its most negative value.
func TestLookup(t *testing.T) {
	cases := []struct {
		name  string
		elem  Int
		table []int64
		in    []int64
		want  []int64
	}{
		{"signed 3-bit square, saturated", S(3), []int64{3, 3, 3, 1, 0, 1, 3, 3}, []int64{-4, -3, -1, 0, 1, 3}, []int64{3, 3, 1, 0, 1, 3}},
		{"unsigned 2-bit reverse", U(2), []int64{3, 2, 1, 0}, []int64{0, 1, 2, 3, 3}, []int64{3, 2, 1, 0, 0}},
		{"identity of int8", S(8), identityTable(S(8)), []int64{-128, -1, 0, 127}, []int64{-128, -1, 0, 127}},
	}
	for _, tc := range cases {
		x := &Tensor{Shape: []int{len(tc.in)}, Data: tc.in}
		got, err := Lookup(x, tc.table, tc.elem)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got.Data); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func identityTable(t Int) []int64 {
	table := make([]int64, 1<<uint(t.Width))
	for k := range table {
		table[k] = t.Min() + int64(k)
	}
	return table
}

// A table of the wrong length, an entry or an input outside the type.
func TestLookupErrors(t *testing.T) {
	one := func(v int64) *Tensor { return &Tensor{Shape: []int{1}, Data: []int64{v}} }
	cases := []struct {
		name  string
		x     *Tensor
		table []int64
		elem  Int
		want  string
	}{
		{"short table", one(0), []int64{0, 1, 2}, U(2), "a lookup table of uint2 has 3 entries, not 4 (one per value)"},
		{"entry outside the type", one(0), []int64{0, 1, 2, 4}, U(2), "lookup table entry 3 (input 3) = 4 is not a value of uint2 (0..3)"},
		{"input outside the type", one(-1), []int64{0, 1, 2, 3}, U(2), "Lookup of -1 (element 0), not a value of uint2"},
		{"too wide", one(0), nil, S(17), "element width must be in 1..16"},
		{"nil tensor", nil, []int64{0, 1, 2, 3}, U(2), "Lookup of a nil tensor"},
	}
	for _, tc := range cases {
		_, err := Lookup(tc.x, tc.table, tc.elem)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TableOf rounds half away from zero and saturates; NaN is 0.
func TestTableOfRounding(t *testing.T) {
	// Input step 1, output step 1: the entries are f of the values.
	f := func(x float64) float64 {
		switch x {
		case -2:
			return math.NaN()
		case -1:
			return -2.5
		case 0:
			return 2.5
		}
		return x * 100 // ±100 saturates
	}
	got, err := TableOf(f, 1, 1, S(3))
	if err != nil {
		t.Fatal(err)
	}
	// inputs -4 .. 3
	want := []int64{-4, -4, 0, -3, 3, 3, 3, 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []struct {
		in, out float64
		elem    Int
		want    string
	}{
		{0, 1, S(8), "inScale = 0 must be a positive finite scale"},
		{1, math.Inf(1), S(8), "outScale = +Inf must be a positive finite scale"},
		{1, math.NaN(), S(8), "outScale = NaN"},
		{1, 1, S(20), "element width must be in 1..16"},
	} {
		if _, err := TableOf(f, bad.in, bad.out, bad.elem); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("TableOf(%v, %v, %v): error %v, want %q", bad.in, bad.out, bad.elem, err, bad.want)
		}
	}
}

// Sigmoid and tanh tables of int8 with typical scales are within half
// an output step of the float function wherever it is in range (and
// saturated where it is not).
func TestTableOfSigmoidTanh(t *testing.T) {
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	elem := S(8)
	cases := []struct {
		name              string
		f                 func(float64) float64
		inScale, outScale float64
	}{
		{"sigmoid", sigmoid, 8.0 / 128, 1.0 / 128},
		{"sigmoid wide input", sigmoid, 0.25, 1.0 / 128},
		{"tanh", math.Tanh, 4.0 / 128, 1.0 / 127},
		{"tanh coarse output", math.Tanh, 3.0 / 128, 1.0 / 64},
	}
	for _, tc := range cases {
		table, err := TableOf(tc.f, tc.inScale, tc.outScale, elem)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckTable(table, elem); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for k, q := range table {
			v := elem.Min() + int64(k)
			y := tc.f(float64(v)*tc.inScale) / tc.outScale // in output steps
			want := math.Max(float64(elem.Min()), math.Min(float64(elem.Max()), y))
			if math.Abs(float64(q)-want) > 0.5 {
				t.Errorf("%s: entry for %d = %d, float %.3f steps (%.3f in range): off by more than half a step", tc.name, v, q, y, want)
			}
		}
	}
	// A few entries by hand: sigmoid(0) = 0.5 is 64 steps of 1/128,
	// sigmoid(−8)·128 = 0.04 rounds to 0, sigmoid(7.94)·128 = 127.95
	// rounds to 128 and saturates; tanh(±0.625)·127 = ±70.4.
	sig, _ := TableOf(sigmoid, 8.0/128, 1.0/128, elem)
	th, _ := TableOf(math.Tanh, 4.0/128, 1.0/127, elem)
	got := []int64{sig[128], sig[0], sig[255], th[128], th[128+20], th[128-20]}
	want := []int64{64, 0, 127, 0, 70, -70}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hand-checked entries (-want +got):\n%s", diff)
	}
}
