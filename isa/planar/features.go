package planar

import "fmt"

// A Feature is an optional part of the planar engine that a
// configuration can leave out for area (Sizes.NoPoolAvg, NoPoolMin,
// NoEltwise, NoEltwiseMul, NoReduce, NoPostFn; the lookup table is
// Sizes.LUT). Features is their table: the ISA's validation, the
// hardware's fn check and the compiler's refusals are made from it.
type Feature struct {
	Name  string // as the NPU's configuration field names it: planar_<Name>
	Field string // the npu.Config JSON field that gives it back
	Doc   string // what a task uses, for messages
	// Attr is the task field a refusal names: op for a whole operation,
	// fn for one of its functions, post for a post function.
	Attr string
	// Uses reports whether a task needs the feature.
	Uses func(t Task) bool
	// flag is the Sizes field that leaves it out.
	flag func(s *Sizes) *bool
}

// Missing reports whether s leaves f out.
func (f *Feature) Missing(s Sizes) bool { return *f.flag(&s) }

// Omit leaves f out of s.
func (f *Feature) Omit(s *Sizes) { *f.flag(s) = true }

// FeatureNamed is the feature of that Name, or nil.
func FeatureNamed(name string) *Feature {
	for i := range Features {
		if Features[i].Name == name {
			return &Features[i]
		}
	}
	return nil
}

// Features are the optional post features, in the order the checks
// report them.
var Features = []Feature{
	{"pool_avg", "planar_pool_avg", "average pooling", "fn",
		func(t Task) bool { return t.Op == OpPool && t.Fn == FnPoolAvg },
		func(s *Sizes) *bool { return &s.NoPoolAvg }},
	{"pool_min", "planar_pool_min", "min pooling", "fn",
		func(t Task) bool { return t.Op == OpPool && t.Fn == FnPoolMin },
		func(s *Sizes) *bool { return &s.NoPoolMin }},
	// The whole op before its sub-feature: a mul on an engine without
	// either names eltwise, the field that must come back first.
	{"eltwise", "planar_eltwise", "eltwise operations (add, sub, mul, max, min, abs, neg)", "op",
		func(t Task) bool { return t.Op == OpEltwise },
		func(s *Sizes) *bool { return &s.NoEltwise }},
	{"eltwise_mul", "planar_eltwise_mul", "eltwise mul", "fn",
		func(t Task) bool { return t.Op == OpEltwise && t.Fn == FnMul },
		func(s *Sizes) *bool { return &s.NoEltwiseMul }},
	{"reduce", "planar_reduce", "reductions (sum, max, rowsum, rowmax)", "op",
		func(t Task) bool { return t.Op == OpReduce },
		func(s *Sizes) *bool { return &s.NoReduce }},
	{"postfn", "planar_postfn", "post functions (a reduction's sqrt or recip)", "post",
		func(t Task) bool { return t.Op == OpReduce && (t.Post == PostSqrt || t.Post == PostRecip) },
		func(s *Sizes) *bool { return &s.NoPostFn }},
}

// AttrValue is the value of f's task field (Attr) in t, for messages.
func (f *Feature) AttrValue(t Task) any {
	switch f.Attr {
	case "op":
		return uint8(t.Op)
	case "post":
		return uint8(t.Post)
	}
	return uint8(t.Fn)
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
