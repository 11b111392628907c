package quant

import (
	"fmt"
	"math"

	"github.com/hwgen/hwgen/golden"
)

// Fixed is a real multiplier in the post-processor's terms: Scale/2^Shift.
type Fixed struct {
	Scale int64
	Shift int
}

// Value is the real number f stands for.
func (f Fixed) Value() float64 { return math.Ldexp(float64(f.Scale), -f.Shift) }

// relErr is |f − m|/m.
func (f Fixed) relErr(m float64) float64 { return math.Abs(f.Value()-m) / m }

// checkFormat rejects a scale width or shift limit the post-processor
// (and the int64 model of it) cannot have.
func checkFormat(maxShift, scaleWidth int) error {
	if maxShift < 0 || maxShift > 62 {
		return fmt.Errorf("quant: max shift %d outside 0..62", maxShift)
	}
	if scaleWidth < 2 || scaleWidth > 32 {
		return fmt.Errorf("quant: scale width %d outside 2..32", scaleWidth)
	}
	return nil
}

// Multiplier approximates the real multiplier m > 0 by scale/2^shift with
// the largest shift ≤ maxShift whose scale = round_half_even(m·2^shift)
// fits a signed scaleWidth-bit integer; the largest shift keeps the most
// bits of m. It returns the pair and its relative error |scale/2^shift −
// m|/m, or an error when m is so large that even shift 0 overflows the
// scale, or so small that the scale rounds to 0 at maxShift.
func Multiplier(m float64, maxShift, scaleWidth int) (Fixed, float64, error) {
	if err := checkFormat(maxShift, scaleWidth); err != nil {
		return Fixed{}, 0, err
	}
	if !(m > 0) || math.IsInf(m, 0) {
		return Fixed{}, 0, fmt.Errorf("quant: multiplier %g is not a positive finite number", m)
	}
	top := float64(golden.S(scaleWidth).Max())
	for sh := maxShift; sh >= 0; sh-- {
		s := math.RoundToEven(math.Ldexp(m, sh))
		if s > top {
			continue
		}
		if s == 0 {
			return Fixed{}, 0, fmt.Errorf("quant: multiplier %g too small: scale rounds to 0 even at the max shift %d", m, maxShift)
		}
		f := Fixed{Scale: int64(s), Shift: sh}
		return f, f.relErr(m), nil
	}
	return Fixed{}, 0, fmt.Errorf("quant: multiplier %g too large for a %d-bit signed scale (max %g)", m, scaleWidth, top)
}

// LayerMultipliers approximates the multipliers of all output channels of
// a layer with one shared shift, since a planar task has one shift but a
// scale per lane: the shift is Multiplier's for the largest m[o], and
// scale[o] = round_half_even(m[o]·2^shift), which then fits too. It
// returns the scales, the shift and the worst relative error over the
// channels, or an error naming a channel whose scale rounds to 0.
func LayerMultipliers(m []float64, maxShift, scaleWidth int) (scales []int64, shift int, worst float64, err error) {
	if len(m) == 0 {
		return nil, 0, 0, fmt.Errorf("quant: a layer with no output channels")
	}
	big := 0
	for o, v := range m {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, 0, 0, fmt.Errorf("quant: output channel %d: multiplier %g is not a positive finite number", o, v)
		}
		if v > m[big] {
			big = o
		}
	}
	f, _, err := Multiplier(m[big], maxShift, scaleWidth)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("output channel %d: %w", big, err)
	}
	scales = make([]int64, len(m))
	for o, v := range m {
		fo := Fixed{Scale: int64(math.RoundToEven(math.Ldexp(v, f.Shift))), Shift: f.Shift}
		if fo.Scale == 0 {
			return nil, 0, 0, fmt.Errorf("quant: output channel %d: multiplier %g rounds to scale 0 at the layer's shift %d (set by channel %d's %g)",
				o, v, f.Shift, big, m[big])
		}
		scales[o] = fo.Scale
		worst = max(worst, fo.relErr(v))
	}
	return scales, f.Shift, worst, nil
}

// FoldBias moves int32 accumulator biases into the post-processor:
// (acc + biasQ[o])·scale[o] = acc·scale[o] + biasQ[o]·scale[o], so the
// requantizer bias of channel o is biasQ[o]·scale[o]. It fails, naming the
// channel, when that does not fit the planar task's signed accWidth-bit
// bias field; the bias must then be added in the accumulator instead.
func FoldBias(biasQ, scales []int64, accWidth int) ([]int64, error) {
	if len(biasQ) != len(scales) {
		return nil, fmt.Errorf("quant: %d biases for %d scales", len(biasQ), len(scales))
	}
	if accWidth < 2 || accWidth > 64 {
		return nil, fmt.Errorf("quant: bias width %d outside 2..64", accWidth)
	}
	field := golden.S(accWidth)
	out := make([]int64, len(biasQ))
	for o, b := range biasQ {
		if !golden.S(32).Fits(b) || !golden.S(32).Fits(scales[o]) {
			return nil, fmt.Errorf("quant: output channel %d: bias %d or scale %d does not fit int32", o, b, scales[o])
		}
		v := b * scales[o] // both within int32: exact in int64
		if !field.Fits(v) {
			return nil, fmt.Errorf("quant: output channel %d: folded bias %d·%d = %d does not fit the %s requant bias; add the bias in the accumulator instead",
				o, b, scales[o], v, field)
		}
		out[o] = v
	}
	return out, nil
}
