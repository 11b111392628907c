package main

import (
	"encoding/json"
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
