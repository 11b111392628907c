package verify_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// Every built-in example agrees with Verilator on random stimulus.
func TestExamplesAgreeWithVerilator(t *testing.T) {
	tooltest.Need(t, "verilator")
	for _, name := range []string{"mac", "array4", "mem", "memmacro", "ops"} {
		t.Run(name, func(t *testing.T) {
			ex, _ := examples.Lookup(name)
			d, err := hdl.Elaborate(ex.Build())
			if err != nil {
				t.Fatal(err)
			}
			st := stim.Random(d, 400, 1)
			res, err := verify.CrossCheck(d, st, verify.Options{Dir: t.TempDir(), CompareMemories: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d cycles x %d outputs agree (build %v cached=%v)", name, res.Cycles, res.Outputs, res.BuildTime, res.Cached)
		})
	}
}

// A new stimulus on the same design is a new run of the same build: the
// harness reads the stimulus at run time, so it is not part of the build's
// content hash. Both runs still compare every output every cycle.
func TestNewStimulusReusesTheBuild(t *testing.T) {
	tooltest.Need(t, "verilator")
	ex, _ := examples.Lookup("mac")
	d := hdl.MustElaborate(ex.Build())
	cache := t.TempDir()
	opt := verify.BuildOptions{CacheDir: cache}
	tests := []struct {
		name       string
		st         *stim.Stimulus
		wantCached bool
	}{
		{"first stimulus builds", stim.Random(d, 300, 1), false},
		{"another stimulus of another length reuses", stim.Random(d, 123, 2), true},
	}
	var keys []string
	for _, tc := range tests {
		res, err := verify.CrossCheck(d, tc.st, verify.Options{Dir: t.TempDir(), Build: opt})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Cached != tc.wantCached || res.Cycles != tc.st.Cycles() {
			t.Errorf("%s: cached %v after %d cycles, want cached %v after %d", tc.name, res.Cached, res.Cycles, tc.wantCached, tc.st.Cycles())
		}
		b, err := verify.BuildVerilator(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, b.Key)
	}
	if diff := cmp.Diff(keys[:1], keys[1:]); diff != "" {
		t.Errorf("build keys differ between the stimuli (-first +second):\n%s", diff)
	}
	builds, err := filepath.Glob(filepath.Join(cache, d.Top.Name+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(builds) != 1 {
		t.Errorf("cache holds %d builds, want 1: %v", len(builds), builds)
	}
}
