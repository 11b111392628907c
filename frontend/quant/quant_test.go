package quant

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// errMatch checks err against want: "" means no error, otherwise a
// substring the message must contain.
func errMatch(t *testing.T, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	return err == nil
}

func TestWeights(t *testing.T) {
	// A 2×1×2×2 Conv weight: two output channels of four values each.
	tests := []struct {
		name    string
		w       []float32
		out     int
		q       []int64
		scales  []float64
		wantErr string
	}{{
		// Channel 0: max|W| = 1.27, s = 0.01: 0.5→50, −1.27→−127, 0→0, 1→100.
		// Channel 1: max|W| = 7.9375 = 127·2^−4, s = 0.0625 exactly:
		// 7.9375→127, 0.09375→1.5→2 (tie to even), 0.15625→2.5→2 (tie to
		// even), −0.03125→−0.5→0 (tie to even).
		name:   "two channels",
		w:      []float32{0.5, -1.27, 0, 1, 7.9375, 0.09375, 0.15625, -0.03125},
		out:    2,
		q:      []int64{50, -127, 0, 100, 127, 2, 2, 0},
		scales: []float64{float64(float32(1.27)) / 127, 0.0625},
	}, {
		// Channel 0: max|W| = 15.875 = 127·2^−3, s = 0.125 exactly:
		// −15.875→−127, 0.0625→0.5→0, 0.1875→1.5→2, 7.9375→63.5→64 (ties
		// to even). Channel 1 is all zero: q = 0 at the largest other
		// scale, 0.125.
		name:   "zero channel",
		w:      []float32{-15.875, 0.0625, 0.1875, 7.9375, 0, 0, 0, 0},
		out:    2,
		q:      []int64{-127, 0, 2, 64, 0, 0, 0, 0},
		scales: []float64{0.125, 0.125},
	}, {
		name:   "all zero",
		w:      make([]float32, 4),
		out:    2,
		q:      make([]int64, 4),
		scales: []float64{1, 1},
	}, {
		name:    "ragged",
		w:       make([]float32, 7),
		out:     2,
		wantErr: "7 weights do not split into 2",
	}, {
		name:    "NaN",
		w:       []float32{0, 0, 0, 0, 1, float32(math.NaN()), 0, 0},
		out:     2,
		wantErr: "weight 1 of output channel 1",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, s, err := Weights(tc.w, tc.out)
			if !errMatch(t, err, tc.wantErr) {
				return
			}
			if d := cmp.Diff(tc.q, q); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.scales, s); d != "" {
				t.Errorf("scales (-want +got):\n%s", d)
			}
		})
	}
}

func TestCalibrator(t *testing.T) {
	tests := []struct {
		name     string
		inputs   [][]float32
		min, max float32
		scale    float64
		wantErr  string
	}{{
		// Three inputs: the range is [−2.54, 1], s = 2.54/127 (= 0.02
		// up to float32 rounding of 2.54).
		name:   "three inputs",
		inputs: [][]float32{{0.5, -0.2}, {1, 0.3}, {-2.54, 0.1}},
		min:    -2.54, max: 1,
		scale: float64(float32(2.54)) / 127,
	}, {
		// The positive side dominates: s = 12.7/127.
		name:   "positive",
		inputs: [][]float32{{}, {3, 12.7}, {-1}},
		min:    -1, max: 12.7,
		scale: float64(float32(12.7)) / 127,
	}, {
		name:   "all zero",
		inputs: [][]float32{{0, 0}},
		scale:  1,
	}, {
		name:    "nothing",
		inputs:  [][]float32{{}},
		wantErr: "no values",
	}, {
		name:    "infinity",
		inputs:  [][]float32{{1}, {0, float32(math.Inf(-1))}},
		wantErr: "tensor 1, element 1",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Calibrator
			var err error
			for _, x := range tc.inputs {
				if err = c.Observe(x); err != nil {
					break
				}
			}
			var s float64
			if err == nil {
				s, err = c.Scale()
			}
			if !errMatch(t, err, tc.wantErr) {
				return
			}
			got := []any{c.Min, c.Max, c.N, s}
			want := []any{tc.min, tc.max, len(tc.inputs), tc.scale}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("min, max, N, scale (-want +got):\n%s", d)
			}
		})
	}
}

func TestBias(t *testing.T) {
	tests := []struct {
		name    string
		b       []float32
		sx      float64
		sw      []float64
		want    []int64
		wantErr string
	}{{
		// s_x·s_w = 0.0002 and 0.01: 0.3/0.0002 = 1500, −1/0.01 = −100
		// (up to float rounding, far from a tie).
		name: "round",
		b:    []float32{0.3, -1},
		sx:   0.02,
		sw:   []float64{0.01, 0.5},
		want: []int64{1500, -100},
	}, {
		// Binary fractions, so the quotients are exact: s_x·s_w = 0.0625,
		// 0.25, 0.25, 0.25; 0.625/0.0625 = 10, 0.1875/0.25 = 0.75→1,
		// 0.125/0.25 = 0.5→0 and −0.375/0.25 = −1.5→−2 (ties to even).
		name: "ties",
		b:    []float32{0.625, 0.1875, 0.125, -0.375},
		sx:   0.25,
		sw:   []float64{0.25, 1, 1, 1},
		want: []int64{10, 1, 0, -2},
	}, {
		// 2^31 does not fit; −2^31 does.
		name:    "overflow",
		b:       []float32{-2147483648, 2147483648},
		sx:      1,
		sw:      []float64{1, 1},
		wantErr: "output channel 1",
	}, {
		name:    "lengths",
		b:       []float32{1},
		sx:      1,
		sw:      []float64{1, 1},
		wantErr: "1 biases for 2 weight scales",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Bias(tc.b, tc.sx, tc.sw)
			if !errMatch(t, err, tc.wantErr) {
				return
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("bias (-want +got):\n%s", d)
			}
		})
	}
}
