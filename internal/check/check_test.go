package check

import (
	"errors"
	"testing"
)

func TestMessages(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{Range("pe.rows", 0, 1, 128), "pe.rows = 0 is not allowed: must be in 1..128"},
		{Positive("sram.depth", -3), "sram.depth = -3 is not allowed: must be a positive whole number"},
		{PowerOfTwo("sram.depth", 100, 2, 1<<20, "banks are addressed by bit fields"), "sram.depth = 100 is not allowed: must be a power of two in 2..1048576 (banks are addressed by bit fields)"},
	}
	for _, tc := range cases {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("got %v, want %q", tc.err, tc.want)
		}
		if !errors.Is(tc.err, ErrConfig) {
			t.Errorf("%v does not wrap ErrConfig", tc.err)
		}
	}
	for _, ok := range []error{Range("x", 1, 1, 2), Positive("x", 1), PowerOfTwo("x", 64, 1, 64, ""), All(nil, nil)} {
		if ok != nil {
			t.Errorf("unexpected error %v", ok)
		}
	}
	if err := All(Positive("a", 0), nil, Positive("b", 0)); err == nil || !errors.Is(err, ErrConfig) {
		t.Errorf("All lost errors: %v", err)
	}
}

func TestPrefix(t *testing.T) {
	if got := Prefix("npu.systolic")("rows"); got != "npu.systolic.rows" {
		t.Errorf("Prefix = %q", got)
	}
	if got := Prefix("")("rows"); got != "rows" {
		t.Errorf("empty Prefix = %q", got)
	}
}

// A Set remembers which fields failed, by name.
func TestSet(t *testing.T) {
	var s Set
	s.Add(Range("rows", 0, 1, 4))
	s.Add(Range("cols", 2, 1, 4))
	s.Add(nil)
	cases := []struct {
		fields []string
		want   bool
	}{{[]string{"cols"}, true}, {[]string{"rows"}, false}, {[]string{"cols", "rows"}, false}, {nil, true}}
	for _, tc := range cases {
		if got := s.OK(tc.fields...); got != tc.want {
			t.Errorf("OK(%v) = %v, want %v", tc.fields, got, tc.want)
		}
	}
	if err := s.Err(); err == nil || err.Error() != "rows = 0 is not allowed: must be in 1..4" {
		t.Errorf("Err() = %v", err)
	}
	if (&Set{}).Err() != nil {
		t.Errorf("an empty set has an error")
	}
}
