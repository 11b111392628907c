package planar

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sizes is a small engine lacking the named features.
func sizes(t *testing.T, names ...string) Sizes {
	s := Sizes{Lanes: 4, PsumLanes: 4, ElemWidth: 8, ElemSigned: true, AccWidth: 20, ScaleWidth: 10,
		StateDepth: 64, PsumDepth: 16, MaxKernel: 3, LineDepth: 8}
	for _, n := range names {
		f := FeatureNamed(n)
		if f == nil {
			t.Fatalf("no feature %s", n)
		}
		f.Omit(&s)
	}
	return s
}

// Validate refuses a task using a feature the engine lacks with ErrFn
// on the field the feature names (op, fn or post), the first missing
// feature in table order; the same task passes on the full engine.
func TestValidateMissingFeature(t *testing.T) {
	pool := func(fn Fn) Task {
		return Task{Op: OpPool, Fn: fn, Mask: 1, Src: 0, Dst: 20, H: 4, W: 4, KH: 2, KW: 2, Stride: 2, Scale: 1}
	}
	elt := func(fn Fn) Task {
		return Task{Op: OpEltwise, Fn: fn, Mask: 3, Src: 0, Src2: 8, Dst: 20, H: 2, W: 4, Scale: 1}
	}
	red := func(fn Fn, p Post) Task {
		return Task{Op: OpReduce, Fn: fn, Mask: 1, Src: 0, Dst: 20, H: 2, W: 4, Scale: 1, Post: p}
	}
	bcast := elt(FnMax)
	bcast.Broadcast = true
	cases := []struct {
		name    string
		t       Task
		missing []string
		want    string // the refusal: field = value and the feature, "" for none
	}{
		{"avg pool", pool(FnPoolAvg), []string{"pool_avg"}, "fn = 1 (pool_avg)"},
		{"min pool", pool(FnPoolMin), []string{"pool_min"}, "fn = 2 (pool_min)"},
		{"max pool without both others", pool(FnPoolMax), []string{"pool_avg", "pool_min"}, ""},
		{"add", elt(FnAdd), []string{"eltwise"}, "op = 3 (eltwise)"},
		{"max broadcast", bcast, []string{"eltwise"}, "op = 3 (eltwise)"},
		{"abs", elt(FnAbs), []string{"eltwise"}, "op = 3 (eltwise)"},
		{"mul without eltwise and mul", elt(FnMul), []string{"eltwise", "eltwise_mul"}, "op = 3 (eltwise)"},
		{"add without mul", elt(FnAdd), []string{"eltwise_mul"}, ""},
		{"sum", red(FnSum, PostNone), []string{"reduce"}, "op = 5 (reduce)"},
		{"rowmax", red(FnRowMax, PostNone), []string{"reduce"}, "op = 5 (reduce)"},
		{"sqrt without reduce and postfn", red(FnSum, PostSqrt), []string{"reduce", "postfn"}, "op = 5 (reduce)"},
		{"recip without postfn", red(FnSum, PostRecip), []string{"postfn"}, "post = 2 (postfn)"},
		{"sum without postfn", red(FnSum, PostNone), []string{"postfn"}, ""},
		{"act relu without all", Task{Op: OpAct, Mask: 1, Src: 0, Dst: 20, H: 2, W: 4, Scale: 3, Relu: true, PerLane: true},
			[]string{"pool_avg", "pool_min", "eltwise", "eltwise_mul", "reduce", "postfn"}, ""},
		{"writeback without all", Task{Op: OpWriteBack, Mask: 1, Src: 0, Dst: 20, H: 2, W: 4},
			[]string{"pool_avg", "pool_min", "eltwise", "eltwise_mul", "reduce", "postfn"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.t.Validate(sizes(t)); err != nil {
				t.Fatalf("the full engine refuses it: %v", err)
			}
			s := sizes(t, tc.missing...)
			err := tc.t.Validate(s)
			got := ""
			var te *TaskError
			if errors.As(err, &te) {
				got = fmt.Sprintf("%s = %v", te.Field, te.Value)
				if f := s.MissingFeature(tc.t); f != nil {
					got += " (" + f.Name + ")"
				}
				if !errors.Is(err, ErrTask) || FirstCode(err) != ErrFn {
					t.Errorf("error %v, want ErrFn", err)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("the refusal (-want +got):\n%s\n(error %v)", d, err)
			}
		})
	}
}

// Each feature's refusal names it and the NPU field that gives it back,
// in one line.
func TestFeatureError(t *testing.T) {
	var got []string
	for i := range Features {
		got = append(got, FeatureError(&Features[i]).Error())
	}
	want := []string{
		"the planar engine has no average pooling (npu planar_pool_avg = false): set planar_pool_avg = true to build it",
		"the planar engine has no min pooling (npu planar_pool_min = false): set planar_pool_min = true to build it",
		"the planar engine has no eltwise operations (add, sub, mul, max, min, abs, neg) (npu planar_eltwise = false): set planar_eltwise = true to build it",
		"the planar engine has no eltwise mul (npu planar_eltwise_mul = false): set planar_eltwise_mul = true to build it",
		"the planar engine has no reductions (sum, max, rowsum, rowmax) (npu planar_reduce = false): set planar_reduce = true to build it",
		"the planar engine has no post functions (a reduction's sqrt or recip) (npu planar_postfn = false): set planar_postfn = true to build it",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
