package planar

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
)

// noChecks is c without the checks of the task's fields.
func noChecks(c Config) Config {
	c.NoChecks = true
	return c
}

// Without the checks an engine runs well-formed tasks exactly as with
// them: the same results (golden models) and the same cycles (runSuite
// compares both), on several configurations and random task seeds.
func TestNoChecksRunsGoodTasks(t *testing.T) {
	for i, tc := range []struct {
		c      Config
		tables bool // the task tables fit its layout
	}{
		{noChecks(smallConfig()), true}, {noChecks(deep(smallConfig())), true}, {noChecks(deep(unsignedConfig())), false},
		{noChecks(without(deep(smallConfig()), allFeatures()...)), false},
	} {
		c := tc.c
		t.Run(Name(c), func(t *testing.T) {
			if !strings.HasSuffix(Name(c), "_nc") {
				t.Errorf("module name %s does not mark the variant (_nc)", Name(c))
			}
			seed := uint64(51 + i)
			tasks := randomTasks(seed, c, 40, 120)
			if tc.tables {
				tasks = append(allTables(), tasks...)
			}
			runSuite(t, newBench(t, c, seed, 0.3), tasks, false)
		})
	}
}

// Without the checks a malformed task that ends (an act with crossed
// clamp bounds, a reduction shifted past the limit) reports no error
// (and ends: run fails on a hang); with them the same task reports its
// code (TestHardwareErrorStatus has every code).
func TestNoChecksReportsNothing(t *testing.T) {
	bad := map[string]isaplanar.ErrCode{}
	for _, tc := range badTasks(smallConfig()) {
		bad[tc.name] = tc.code
	}
	var got, want []string
	for _, tc := range badTasks(smallConfig()) {
		if tc.name != "clamp bounds crossed" && tc.name != "shift too large" {
			continue
		}
		for _, c := range []Config{smallConfig(), noChecks(smallConfig())} {
			res := newBench(t, c, 61, 0).run(tc.t)
			got = append(got, tc.name+": "+res.errCode.String())
			code := tc.code
			if c.NoChecks {
				code = isaplanar.ErrNone
			}
			want = append(want, tc.name+": "+code.String())
		}
	}
	if len(want) != 4 {
		t.Fatalf("the bad tasks used here are gone from badTasks: %v", bad)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("error codes (-want +got):\n%s", d)
	}
}
