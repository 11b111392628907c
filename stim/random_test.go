package stim

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// NextWords draws exactly what Next draws: the CLI's long random runs use
// it, and --check replays Next's stimulus on Verilator.
func TestNextWordsMatchesNext(t *testing.T) {
	inputs := []Port{
		{"rst", hdl.Bool}, {"a", hdl.UInt(1)}, {"b", hdl.SInt(8)}, {"c", hdl.UInt(63)},
		{"d", hdl.SInt(64)}, {"e", hdl.UInt(65)}, {"f", hdl.SInt(128)}, {"g", hdl.UInt(200)},
	}
	for _, seed := range []uint64{1, 2, 99} {
		big1, words := NewRandomSource(inputs, seed), NewRandomSource(inputs, seed)
		row := make([][]uint64, len(inputs))
		for i, p := range inputs {
			row[i] = make([]uint64, (p.Type.Width+63)/64)
		}
		for cycle := 0; cycle < 500; cycle++ {
			want := big1.Next()
			words.NextWords(row)
			got := make([]string, len(inputs))
			wantS := make([]string, len(inputs))
			for i := range inputs {
				v := new(big.Int)
				for j := len(row[i]) - 1; j >= 0; j-- {
					v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(row[i][j]))
				}
				got[i], wantS[i] = v.Text(16), want[i].Text(16)
			}
			if diff := cmp.Diff(wantS, got); diff != "" {
				t.Fatalf("seed %d cycle %d (-Next +NextWords):\n%s", seed, cycle, diff)
			}
		}
	}
}
