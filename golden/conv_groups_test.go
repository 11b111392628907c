package golden

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seq is a tensor of the given shape holding i·mul mod 7 − 3: small
// values that differ from one element to the next.
func seq(mul int, shape ...int) *Tensor {
	t := New(shape...)
	for i := range t.Data {
		t.Data[i] = int64(i*mul%7) - 3
	}
	return t
}

// A grouped convolution is the convolution of each group's channels by
// its own filters, stacked: the definition checked against Conv2D.
func TestConv2DGroups(t *testing.T) {
	cases := []struct {
		name                   string
		c, h, w, co, k, groups int
		stride, pad            int
	}{
		{"one group is Conv2D", 4, 5, 5, 6, 3, 1, 1, 1},
		{"two groups", 4, 5, 6, 6, 3, 2, 1, 1},
		{"depthwise", 3, 5, 5, 3, 3, 3, 2, 1},
		{"depthwise, multiplier 2", 3, 4, 4, 6, 1, 3, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cg, og := tc.c/tc.groups, tc.co/tc.groups
			x, w := seq(5, tc.c, tc.h, tc.w), seq(3, tc.co, cg, tc.k, tc.k)
			got, err := Conv2DGroups(x, w, tc.stride, tc.pad, tc.pad, tc.groups, S(32))
			if err != nil {
				t.Fatal(err)
			}
			var parts []*Tensor
			for g := 0; g < tc.groups; g++ {
				xg, err := Channels(x, span(g*cg, cg))
				if err != nil {
					t.Fatal(err)
				}
				wg, err := Channels(w, span(g*og, og))
				if err != nil {
					t.Fatal(err)
				}
				y, err := Conv2D(xg, wg, tc.stride, tc.pad, tc.pad, S(32))
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, y)
			}
			want, err := ConcatChannels(parts...)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-per group +grouped):\n%s", d)
			}
		})
	}
	for _, bad := range []struct {
		name   string
		groups int
		w      *Tensor
	}{{"groups 0", 0, New(2, 4, 1, 1)}, {"groups do not divide C", 3, New(3, 1, 1, 1)}, {"w has C, not C/groups", 2, New(2, 4, 1, 1)}} {
		if _, err := Conv2DGroups(New(4, 3, 3), bad.w, 1, 0, 0, bad.groups, S(32)); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

func span(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

func TestChannels(t *testing.T) {
	x := &Tensor{Shape: []int{3, 2}, Data: []int64{1, 2, 3, 4, 5, 6}}
	cases := []struct {
		name string
		perm []int
		want *Tensor
	}{
		{"reverse", []int{2, 1, 0}, &Tensor{Shape: []int{3, 2}, Data: []int64{5, 6, 3, 4, 1, 2}}},
		{"select twice", []int{1, 1}, &Tensor{Shape: []int{2, 2}, Data: []int64{3, 4, 3, 4}}},
	}
	for _, tc := range cases {
		got, err := Channels(x, tc.perm)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	if _, err := Channels(x, []int{3}); err == nil {
		t.Error("channel 3 of 3: no error")
	}
}

func TestConcatChannels(t *testing.T) {
	a := &Tensor{Shape: []int{1, 2}, Data: []int64{1, 2}}
	b := &Tensor{Shape: []int{2, 2}, Data: []int64{3, 4, 5, 6}}
	got, err := ConcatChannels(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&Tensor{Shape: []int{3, 2}, Data: []int64{1, 2, 3, 4, 5, 6}}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := ConcatChannels(a, New(1, 3)); err == nil {
		t.Error("trailing shapes differ: no error")
	}
}
