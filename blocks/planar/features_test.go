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
		switch n {
		case "pool_avg":
			c.NoPoolAvg = true
		case "eltwise_mul":
			c.NoEltwiseMul = true
		case "postfn":
			c.NoPostFn = true
		}
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
		{without(smallConfig(), "eltwise_mul"), []string{"eltwise_mul"}},
		{without(smallConfig(), "postfn"), []string{"postfn"}},
		{without(smallConfig(), allFeatures()...), allFeatures()},
		{deep(without(lutConfig(), allFeatures()...)), allFeatures()},
		{withUnits(without(smallConfig(), allFeatures()...), 2), allFeatures()},
	} {
		t.Run(Name(v.c), func(t *testing.T) {
			good, bad := featureTasks(v.c, 51)
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
