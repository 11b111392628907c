package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/ppa"
)

// TestPPAJSON: hwgen ppa --json prints the figures of the named block,
// configured by --set, for scripts.
func TestPPAJSON(t *testing.T) {
	tooltest.Need(t, "yosys")
	code, stdout, stderr := capture(t, "ppa", "--top", "systolic", "--set", "rows=2", "--set", "cols=1", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r ppa.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if r.Design != "systolic_2x1_s8_s8_s32_e9_n48_zs" || r.Target != ppa.Generic || r.Cells <= 0 || r.FFs <= 0 || r.LogicDepth <= 0 || r.Critical == nil {
		t.Errorf("got %+v, want the 2×1 array's generic figures", r)
	}
}

// TestPPABreakdown: --breakdown prints a line per instance of the top,
// the top's own logic included, in the text and in the JSON.
func TestPPABreakdown(t *testing.T) {
	tooltest.Need(t, "yosys")
	args := []string{"ppa", "--top", "systolic", "--set", "rows=2", "--set", "cols=1", "--breakdown"}
	code, stdout, stderr := capture(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"area by instance", "pe_0_0 (sa_pe_", "pe_1_0 (sa_pe_", "feeder (sa_feeder_", "(top)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = capture(t, append(args, "--json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r ppa.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if len(r.Parts) != 4 {
		t.Errorf("parts %+v, want the two PEs, the feeder and the top's own", r.Parts)
	}
}
