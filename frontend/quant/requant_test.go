package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hwgen/hwgen/golden"
)

// The NPU's default post-processor: 16-bit signed scales. 31 is a shift
// limit below the engine's, so that a cap on the shift shows.
const (
	scaleWidth = 16
	maxShift   = 31
)

// approx compares relative errors to 0.1 % of their value: the expected
// ones are derived by hand to a few digits.
var approx = cmpopts.EquateApprox(1e-3, 1e-12)

func TestMultiplier(t *testing.T) {
	tests := []struct {
		name     string
		m        float64
		maxShift int
		want     Fixed
		relErr   float64
		wantErr  string
	}{{
		// 0.5·2^16 = 32768 > 32767, so shift 15: 16384/2^15, exact.
		name: "0.5", m: 0.5, maxShift: maxShift, want: Fixed{16384, 15},
	}, {
		// 1.75·2^15 = 57344 too big; 1.75·2^14 = 28672, exact.
		name: "1.75", m: 1.75, maxShift: maxShift, want: Fixed{28672, 14},
	}, {
		// 1·2^15 = 32768 is one above the largest scale: shift 14.
		name: "1", m: 1, maxShift: maxShift, want: Fixed{16384, 14},
	}, {
		// 0.0123·2^22 = 51589.9 too big; 0.0123·2^21 = 25794.9696 → 25795,
		// relative error 0.0304/25794.9696 = 1.1785e-6.
		name: "0.0123", m: 0.0123, maxShift: maxShift, want: Fixed{25795, 21}, relErr: 1.1785e-6,
	}, {
		// Capped at shift 10: 0.0123·1024 = 12.5952 → 13, relative error
		// 0.4048/12.5952 = 3.2139e-2.
		name: "0.0123 capped", m: 0.0123, maxShift: 10, want: Fixed{13, 10}, relErr: 3.2139e-2,
	}, {
		// The largest scale at shift 0.
		name: "32767", m: 32767, maxShift: maxShift, want: Fixed{32767, 0},
	}, {
		// 0.6·2^−31·2^31 = 0.6 → 1: representable but coarse, relative
		// error 0.4/0.6.
		name: "coarse", m: 0.6 / (1 << 31), maxShift: maxShift, want: Fixed{1, 31}, relErr: 0.4 / 0.6,
	}, {
		// 2^−33·2^31 = 0.25 rounds to 0.
		name: "too small", m: 1.0 / (1 << 33), maxShift: maxShift, wantErr: "too small",
	}, {
		// 32767.5 → 32768 (tie to even) at shift 0 already overflows.
		name: "too large", m: 32767.5, maxShift: maxShift, wantErr: "too large",
	}, {
		name: "zero", m: 0, maxShift: maxShift, wantErr: "not a positive finite",
	}, {
		name: "shift limit", m: 1, maxShift: 63, wantErr: "max shift 63",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, relErr, err := Multiplier(tc.m, tc.maxShift, scaleWidth)
			if !errMatch(t, err, tc.wantErr) {
				return
			}
			if d := cmp.Diff(tc.want, f); d != "" {
				t.Errorf("fixed (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.relErr, relErr, approx); d != "" {
				t.Errorf("relative error (-want +got):\n%s", d)
			}
		})
	}
}

func TestLayerMultipliers(t *testing.T) {
	tests := []struct {
		name    string
		m       []float64
		scales  []int64
		shift   int
		worst   float64
		wantErr string
	}{{
		// The largest, 0.5, sets shift 15; 0.25·2^15 = 8192 exactly and
		// 0.0123·2^15 = 403.0464 → 403, relative error 0.0464/403.0464 =
		// 1.1512e-4, the worst (alone, 0.0123 would get 1.18e-6 at shift 21).
		name:   "shared shift",
		m:      []float64{0.5, 0.25, 0.0123},
		scales: []int64{16384, 8192, 403},
		shift:  15,
		worst:  1.1512e-4,
	}, {
		// 1 sets shift 14; 2^−20·2^14 = 2^−6 rounds to 0.
		name:    "channel lost",
		m:       []float64{1, 1.0 / (1 << 20)},
		wantErr: "output channel 1: multiplier",
	}, {
		name:    "channel too large",
		m:       []float64{0.5, 1e6},
		wantErr: "output channel 1: quant: multiplier 1e+06 too large",
	}, {
		name:    "empty",
		wantErr: "no output channels",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scales, shift, worst, err := LayerMultipliers(tc.m, maxShift, scaleWidth)
			if !errMatch(t, err, tc.wantErr) {
				return
			}
			got := []any{scales, shift, worst}
			want := []any{tc.scales, tc.shift, tc.worst}
			if d := cmp.Diff(want, got, approx); d != "" {
				t.Errorf("scales, shift, worst error (-want +got):\n%s", d)
			}
		})
	}
}

func TestFoldBias(t *testing.T) {
	tests := []struct {
		name     string
		biasQ    []int64
		scales   []int64
		accWidth int
		want     []int64
		wantErr  string
	}{{
		// 100·16384 = 1638400, −3·8192 = −24576.
		name: "fits", biasQ: []int64{100, -3}, scales: []int64{16384, 8192}, accWidth: 32,
		want: []int64{1638400, -24576},
	}, {
		// 2^20·2^12 = 2^32 needs 34 signed bits.
		name: "overflow", biasQ: []int64{5, 1 << 20}, scales: []int64{100, 1 << 12}, accWidth: 32,
		wantErr: "output channel 1: folded bias 1048576·4096 = 4294967296 does not fit the int32",
	}, {
		name: "wider field", biasQ: []int64{5, 1 << 20}, scales: []int64{100, 1 << 12}, accWidth: 40,
		want: []int64{500, 1 << 32},
	}, {
		name: "lengths", biasQ: []int64{1}, scales: []int64{1, 2}, accWidth: 32,
		wantErr: "1 biases for 2 scales",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FoldBias(tc.biasQ, tc.scales, tc.accWidth)
			if !errMatch(t, err, tc.wantErr) {
				return
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("folded bias (-want +got):\n%s", d)
			}
		})
	}
}

// roundRef rounds x with r's tie rule; x is exact in the tests that
// compare for equality.
func roundRef(x float64, r golden.Rounding) float64 {
	if r == golden.HalfEven {
		return math.RoundToEven(x)
	}
	return math.Floor(x + 0.5)
}

// TestRequantEndToEnd runs golden.Requant with Multiplier's scale and
// shift on random int32 accumulators: within 1 of round(acc·M) while
// |acc|·M·relErr < 1, within 1/2 + |acc|·M·relErr of acc·M on the whole
// int32 range, and equal to round((acc + bias)·M) when M is exactly
// scale/2^shift, with the bias folded in.
func TestRequantEndToEnd(t *testing.T) {
	wide := golden.S(48) // no saturation: the test is about the arithmetic
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []float64{0.5, 1.75, 0.0123, 1.0 / 3, 0.37, 2.9e-4, 3.1, 7e-9} {
		f, relErr, err := Multiplier(m, maxShift, scaleWidth)
		if err != nil {
			t.Fatalf("M = %g: %v", m, err)
		}
		for _, r := range []golden.Rounding{golden.HalfUp, golden.HalfEven} {
			t.Run(fmt.Sprintf("%g/%v", m, r), func(t *testing.T) {
				q := golden.Requant{Scale: f.Scale, Shift: f.Shift, Rounding: r}
				near := math.MaxInt32 + 1.0
				if relErr > 0 {
					near = min(near, 1/(m*relErr))
				}
				exact := f.Value()
				for range 2000 {
					acc := rng.Int64N(1<<32) - 1<<31
					got := float64(q.Apply(acc, wide))
					x := float64(acc) * m
					if d := math.Abs(got - x); d > 0.5+math.Abs(x)*relErr+1e-9 {
						t.Fatalf("acc %d: Apply %v is %g from acc·M = %g, more than 1/2 + |acc·M|·%g", acc, got, d, x, relErr)
					}
					small := int64(rng.Float64()*near) * (1 - 2*rng.Int64N(2))
					if got, want := float64(q.Apply(small, wide)), roundRef(float64(small)*m, r); math.Abs(got-want) > 1 {
						t.Fatalf("acc %d: Apply %v, round(acc·M) = %v", small, got, want)
					}
					// Exact multiplier, bias folded: (acc + b)·scale/2^shift has at
					// most 48 significant bits, exact in float64.
					b := rng.Int64N(1<<14) - 1<<13
					folded, err := FoldBias([]int64{b}, []int64{f.Scale}, 32)
					if err != nil {
						t.Fatal(err)
					}
					qb := q
					qb.Bias = folded[0]
					if got, want := float64(qb.Apply(acc, wide)), roundRef(float64(acc+b)*exact, r); got != want {
						t.Fatalf("acc %d, bias %d: Apply %v, round((acc+bias)·%g) = %v", acc, b, got, exact, want)
					}
				}
			})
		}
	}
}
