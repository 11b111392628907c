package golden

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Conv2D by hand: x is one 3×3 channel 1..9 and a second channel of
// ones; w has two output channels of 2×2 kernels.
func TestConv2D(t *testing.T) {
	x := &Tensor{Shape: []int{2, 3, 3}, Data: []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1}}
	w := &Tensor{Shape: []int{2, 2, 2, 2}, Data: []int64{
		1, 0, 0, 1, 0, 0, 0, 0, // out 0: x[0](y, x) + x[0](y+1, x+1)
		0, 0, 0, 0, 1, 1, 1, 1, // out 1: the ones of channel 1 under the window
	}}
	cases := []struct {
		name           string
		stride, ph, pw int
		acc            Int
		want           []int64
		oh, ow         int
	}{
		{"valid", 1, 0, 0, S(32), []int64{6, 8, 12, 14, 4, 4, 4, 4}, 2, 2},
		// Padding 1: the corners see one input of each channel.
		{"padded, stride 2", 2, 1, 1, S(32), []int64{1, 3, 7, 14, 1, 2, 2, 4}, 2, 2},
		{"wraps to int4", 1, 0, 0, S(4), []int64{6, -8, -4, -2, 4, 4, 4, 4}, 2, 2},
	}
	for _, tc := range cases {
		got, err := Conv2D(x, w, tc.stride, tc.ph, tc.pw, tc.acc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := &Tensor{Shape: []int{2, tc.oh, tc.ow}, Data: tc.want}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	for _, bad := range []struct {
		name   string
		stride int
		w      *Tensor
	}{{"stride 0", 0, w}, {"kernel larger than the input", 1, New(1, 2, 4, 4)}, {"kernel one wider, stride 2", 2, New(1, 2, 4, 4)}, {"channels differ", 1, New(1, 3, 1, 1)}} {
		if _, err := Conv2D(x, bad.w, bad.stride, 0, 0, S(32)); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}
