package planar

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// The worked example of docs/sources.md §1: after the PE array has streamed the
// identity through A = 1..16 (4×4, row-major in partitions 0..3), psum
// partition j holds A[0][j], A[1][j], A[2][j], A[3][j] at entries 0..3.
// One writeback task moves psum partition j to state partition j at the
// new address n: partition 0 = 1,5,9,13, …, partition 3 = 4,8,12,16 —
// A transposed on chip. Also the non-square case: a 3×4 block.
func TestTransposeWriteBack(t *testing.T) {
	c := smallConfig()
	c.PsumLanes = 4
	for _, tc := range []struct{ rows, cols int }{{4, 4}, {3, 4}, {4, 2}} {
		a := golden.New(tc.rows, tc.cols)
		for i := range a.Data {
			a.Data[i] = int64(i + 1)
		}
		const entry, n = 20, 200
		b := newBenchWith(t, c, 61, 0, func(_, psum [][]int64) {
			for i := 0; i < tc.rows; i++ {
				for j := 0; j < tc.cols; j++ {
					psum[j][entry+i] = a.At(i, j) // what the PE array's transpose leaves
				}
			}
		})
		wb := isaplanar.Task{Op: isaplanar.OpWriteBack, Mask: 1<<uint(tc.cols) - 1, Src: entry, Dst: n, H: 1, W: tc.rows}
		if res := b.run(wb); res.errCode != isaplanar.ErrNone || res.cycles != c.Cycles(wb) {
			t.Fatalf("%dx%d: %+v", tc.rows, tc.cols, res)
		}
		b.expect(wb)
		b.checkMemory("transpose")
		want, _ := golden.Transpose(a)
		got := golden.New(tc.cols, tc.rows)
		for j := 0; j < tc.cols; j++ {
			copy(got.Data[j*tc.rows:], b.state[j][n:n+tc.rows])
		}
		if diff := cmp.Diff(want.Rows(), got.Rows()); diff != "" {
			t.Errorf("%dx%d: state partitions at %d (-Aᵀ +got):\n%s", tc.rows, tc.cols, n, diff)
		}
	}
}
