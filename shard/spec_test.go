package shard

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{in: "0/1", want: Spec{0, 1}},
		{in: "3/4", want: Spec{3, 4}},
		{in: " 2 / 10 ", want: Spec{2, 10}},
		{in: "4/4", wantErr: "out of range: 0 ≤ index < 4"},
		{in: "-1/4", wantErr: "out of range"},
		{in: "0/0", wantErr: "need at least 1"},
		{in: "3", wantErr: "write i/N"},
		{in: "a/4", wantErr: "whole numbers"},
		{in: "1/4/5", wantErr: "whole numbers"},
	} {
		got, err := ParseSpec(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), strings.TrimSpace(tc.in)) {
				t.Errorf("ParseSpec(%q) = %v, %v; want an error naming the value and containing %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseSpec(%q) (-want +got):\n%s", tc.in, diff)
		}
		if back, err := ParseSpec(got.String()); err != nil || back != got {
			t.Errorf("ParseSpec(%q.String()) = %v, %v", got, back, err)
		}
	}
}

// Every item lands in exactly one shard, in order, and shard sizes differ
// by at most one, for every split up to a size.
func TestItemsPartition(t *testing.T) {
	for total := 0; total <= 40; total++ {
		for n := 1; n <= 12; n++ {
			owner := make([]int, total)
			for k := range owner {
				owner[k] = -1
			}
			lo, hi := total, 0
			prevEnd := 0
			for i := 0; i < n; i++ {
				r := Spec{i, n}.Items(total)
				if r.First != prevEnd || r.Total != total {
					t.Fatalf("%d items, shard %d/%d: %+v does not start where the last ended (%d)", total, i, n, r, prevEnd)
				}
				prevEnd = r.End
				lo, hi = min(lo, r.Len()), max(hi, r.Len())
				for k := r.First; k < r.End; k++ {
					if owner[k] != -1 {
						t.Fatalf("%d items, %d shards: item %d in shards %d and %d", total, n, k, owner[k], i)
					}
					owner[k] = i
				}
			}
			for k, o := range owner {
				if o == -1 {
					t.Fatalf("%d items, %d shards: item %d in no shard", total, n, k)
				}
			}
			if hi-lo > 1 {
				t.Errorf("%d items, %d shards: sizes from %d to %d", total, n, lo, hi)
			}
		}
	}
}

func TestItemsExamples(t *testing.T) {
	var got []string
	for i := 0; i < 4; i++ {
		got = append(got, Spec{i, 4}.Items(10).String())
	}
	want := []string{"items 0..2 of 10", "items 3..5 of 10", "items 6..7 of 10", "items 8..9 of 10"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("10 items in 4 shards (-want +got):\n%s", diff)
	}
	if got := (Spec{2, 3}).Items(1).String(); got != "no items of 1" {
		t.Errorf("shard 2/3 of 1 item = %q", got)
	}
}
