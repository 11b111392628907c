package planar

import "fmt"

// A Feature is an optional part of the planar engine that a
// configuration can leave out for area (Sizes.NoPoolAvg, NoEltwiseMul,
// NoPostFn; the lookup table is Sizes.LUT). Features is their table:
// the ISA's validation, the hardware's fn check and the compiler's
// refusals are made from it.
type Feature struct {
	Name  string // as the NPU's configuration field names it: planar_<Name>
	Field string // the npu.Config JSON field that gives it back
	Doc   string // what a task uses, for messages
	// Uses reports whether a task needs the feature.
	Uses func(t Task) bool
	// Missing reports whether s leaves it out.
	Missing func(s Sizes) bool
}

// Features are the optional post features, in the order the checks
// report them.
var Features = []Feature{
	{"pool_avg", "planar_pool_avg", "average pooling",
		func(t Task) bool { return t.Op == OpPool && t.Fn == FnPoolAvg },
		func(s Sizes) bool { return s.NoPoolAvg }},
	{"eltwise_mul", "planar_eltwise_mul", "eltwise mul",
		func(t Task) bool { return t.Op == OpEltwise && t.Fn == FnMul },
		func(s Sizes) bool { return s.NoEltwiseMul }},
	{"postfn", "planar_postfn", "post functions (a reduction's sqrt or recip)",
		func(t Task) bool { return t.Op == OpReduce && (t.Post == PostSqrt || t.Post == PostRecip) },
		func(s Sizes) bool { return s.NoPostFn }},
}

// MissingFeature is the first feature t needs that s leaves out, or nil.
func (s Sizes) MissingFeature(t Task) *Feature {
	for i := range Features {
		if f := &Features[i]; f.Missing(s) && f.Uses(t) {
			return f
		}
	}
	return nil
}

// FeatureError is a planar engine's refusal of a feature it lacks, in
// one line naming it and the NPU field that gives it back.
func FeatureError(f *Feature) error {
	return fmt.Errorf("the planar engine has no %s (npu %s = false): set %s = true to build it", f.Doc, f.Field, f.Field)
}
