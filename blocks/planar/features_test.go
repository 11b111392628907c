package planar

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwgen/hwgen/internal/tooltest"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// without is c lacking the named optional features.
func without(c Config, names ...string) Config {
	for _, n := range names {
		f := isaplanar.FeatureNamed(n)
		if f == nil {
			panic("no feature " + n)
		}
		f.Omit(&c.Sizes)
	}
	return c
}

// allFeatures names every optional post feature.
func allFeatures() []string {
	var ns []string
	for _, f := range isaplanar.Features {
		ns = append(ns, f.Name)
	}
	return ns
}

// featureTasks are every table's tasks and random ones, with a sqrt
// and a recip reduction, split into those c runs and those using a
// feature it lacks.
func featureTasks(c Config, seed uint64) (good, bad []namedTask) {
	ts := append(allTables(), randomTasks(seed, c, 80, 60)...)
	red := isaplanar.Task{Op: isaplanar.OpReduce, Mask: all4, Src: 0, Dst: 200, H: 3, W: 5, Scale: 1}
	for _, p := range []isaplanar.Post{isaplanar.PostSqrt, isaplanar.PostRecip} {
		t := red
		t.Post = p
		ts = append(ts, namedTask{"reduce with " + p.String(), t})
	}
	for _, nt := range ts {
		if c.MissingFeature(nt.t) != nil {
			bad = append(bad, nt)
		} else {
			good = append(good, nt)
		}
	}
	return good, bad
}

// An engine without features runs every other task as the golden model
// does (exact cycles) and flags each task using a missing feature
// ErrFn, in the cycles of an error, touching no memory (Go simulator).
func TestFeaturesLeftOut(t *testing.T) {
	for _, v := range []struct {
		c       Config
		missing []string
	}{
		{without(smallConfig(), "pool_avg"), []string{"pool_avg"}},
		{without(smallConfig(), "pool_min"), []string{"pool_min"}},
		{without(smallConfig(), "eltwise"), []string{"eltwise"}},
		{without(smallConfig(), "eltwise_mul"), []string{"eltwise_mul"}},
		{without(smallConfig(), "reduce"), []string{"reduce"}},
		{without(smallConfig(), "postfn"), []string{"postfn"}},
		// the sub-features' tasks name the whole op's feature first
		{without(smallConfig(), "eltwise", "eltwise_mul", "reduce", "postfn"), []string{"eltwise", "reduce"}},
		{without(smallConfig(), allFeatures()...), []string{"pool_avg", "pool_min", "eltwise", "reduce"}},
		{deep(without(lutConfig(), allFeatures()...)), []string{"pool_avg", "pool_min", "eltwise", "reduce"}},
		{withUnits(without(smallConfig(), allFeatures()...), 2), []string{"pool_avg", "pool_min", "eltwise", "reduce"}},
		// the second read port with the eltwise but not its multiplier
		{withSrc2(without(smallConfig(), "eltwise_mul", "reduce", "postfn")), []string{"eltwise_mul", "reduce"}},
	} {
		t.Run(Name(v.c), func(t *testing.T) {
			good, bad := featureTasks(v.c, 51)
			if d := cmp.Diff(mnistKinds(), kindsOf(good)); lacksAll(v.c) && d != "" {
				t.Errorf("the kinds of task a minimal engine must still run (-want +got):\n%s", d)
			}
			b := newBench(t, v.c, 51, 0)
			runSuite(t, b, good, true)
			seen := map[string]bool{}
			for _, nt := range bad {
				f := v.c.MissingFeature(nt.t)
				seen[f.Name] = true
				checkFeatureError(t, b, nt, f)
			}
			var got []string
			for _, f := range isaplanar.Features {
				if seen[f.Name] {
					got = append(got, f.Name)
				}
			}
			if d := cmp.Diff(v.missing, got); d != "" {
				t.Errorf("missing features the tasks met (-want +got):\n%s", d)
			}
		})
	}
}

// mnistKinds are the kinds of task an mnist-7 NPU runs, which an engine
// without any optional feature keeps: requantization (per lane, with
// ReLU), writeback, wrap (int32 results) and max pooling, padded too.
func mnistKinds() []string {
	return []string{"act per-lane relu", "act relu", "act wrap", "loadparams", "pool max", "pool max padded", "writeback"}
}

// lacksAll reports whether c has none of the optional features.
func lacksAll(c Config) bool {
	for _, f := range isaplanar.Features {
		if !f.Missing(c.Sizes) {
			return false
		}
	}
	return true
}

// kindsOf is the set of mnistKinds among ts, sorted.
func kindsOf(ts []namedTask) []string {
	seen := map[string]bool{}
	for _, nt := range ts {
		t := nt.t
		switch {
		case t.Op == isaplanar.OpAct && t.PerLane && t.Relu:
			seen["act per-lane relu"] = true
		case t.Op == isaplanar.OpAct && t.Wrap:
			seen["act wrap"] = true
		case t.Op == isaplanar.OpAct && t.Relu:
			seen["act relu"] = true
		case t.Op == isaplanar.OpWriteBack:
			seen["writeback"] = true
		case t.Op == isaplanar.OpLoadParams:
			seen["loadparams"] = true
		case t.Op == isaplanar.OpPool && t.Fn == isaplanar.FnPoolMax && t.PadH+t.PadW > 0:
			seen["pool max padded"] = true
		case t.Op == isaplanar.OpPool && t.Fn == isaplanar.FnPoolMax:
			seen["pool max"] = true
		}
	}
	var ks []string
	for _, k := range mnistKinds() {
		if seen[k] {
			ks = append(ks, k)
		}
	}
	return ks
}

// checkFeatureError checks that Validate and the hardware refuse nt
// for lacking f.
func checkFeatureError(t *testing.T, b *bench, nt namedTask, f *isaplanar.Feature) {
	t.Helper()
	err := nt.t.Validate(b.cfg.Sizes)
	if !errors.Is(err, isaplanar.ErrTask) || isaplanar.FirstCode(err) != isaplanar.ErrFn ||
		!strings.Contains(err.Error(), "this engine has no "+f.Name) {
		t.Errorf("%s: Validate says %v, want ErrFn naming %s", nt.name, err, f.Name)
	}
	res := b.run(nt.t)
	if res.errCode != isaplanar.ErrFn || res.cycles != b.cfg.Cycles(nt.t) || res.reads != 0 || res.writes != 0 {
		t.Errorf("%s: code %v in %d cycles, %d reads, %d writes; want ErrFn in %d, no access",
			nt.name, res.errCode, res.cycles, res.reads, res.writes, b.cfg.Cycles(nt.t))
	}
	b.checkMemory(nt.name + " refused")
}

// The engine without any optional feature, under contention: the
// tasks it runs and those it refuses, replayed on Verilator.
func TestCrossCheckFeaturesLeftOut(t *testing.T) {
	tooltest.Need(t, "verilator")
	c := without(smallConfig(), allFeatures()...)
	good, bad := featureTasks(c, 53)
	b := newBench(t, c, 53, 0.5)
	runSuite(t, b, good, false)
	for _, nt := range bad {
		if res := b.run(nt.t); res.errCode != isaplanar.ErrFn {
			t.Errorf("%s: code %v, want ErrFn", nt.name, res.errCode)
		}
	}
	if len(bad) == 0 {
		t.Fatal("no task uses a missing feature")
	}
	b.checkMemory("after refused tasks")
	b.quiesce()
	b.crossCheck()
}
