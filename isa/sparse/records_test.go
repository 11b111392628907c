package sparse

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Records narrower than a line share it, wider ones span lines; laying
// them out and reading them back gives the same records, and the lines
// they take are what GroupLines says.
func TestRecordLines(t *testing.T) {
	cases := []struct {
		name               string
		width, n           int
		perLine, elemWidth int
		wantPer, wantLines int
	}{
		{"three 20-bit records a 64-bit line, a partial last group", 20, 7, 8, 8, 3, 1},
		{"one 32-bit record a 32-bit line", 32, 5, 4, 8, 1, 1},
		{"134-bit records over two 128-bit lines", 134, 4, 16, 8, 1, 2},
		{"512-bit sums over four lines", 512, 3, 16, 8, 1, 4},
		{"23-bit table records, 5 a line", 23, 11, 16, 8, 5, 1},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			per, lines := Grouping(tc.width, tc.perLine*tc.elemWidth)
			if per != tc.wantPer || lines != tc.wantLines {
				t.Fatalf("Grouping = %d records in %d lines, want %d in %d", per, lines, tc.wantPer, tc.wantLines)
			}
			var recs []string
			var in []*big.Int
			for range tc.n {
				v := new(big.Int)
				for b := range tc.width {
					v.SetBit(v, b, uint(r.IntN(2)))
				}
				in = append(in, v)
				recs = append(recs, v.Text(16))
			}
			l := RecordsToLines(in, tc.width, tc.perLine, tc.elemWidth)
			if want := GroupLines(tc.n, tc.width, tc.perLine*tc.elemWidth); len(l) != want {
				t.Errorf("%d lines, GroupLines says %d", len(l), want)
			}
			var got []string
			for _, v := range LinesToRecords(l, tc.n, tc.width, tc.elemWidth) {
				got = append(got, v.Text(16))
			}
			if diff := cmp.Diff(recs, got); diff != "" {
				t.Errorf("records read back (-laid out +read):\n%s", diff)
			}
		})
	}
}
