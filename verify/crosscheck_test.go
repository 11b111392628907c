package verify_test

import (
	"testing"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
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
			st := verify.Random(d, 400, 1)
			res, err := verify.CrossCheck(d, st, verify.Options{Dir: t.TempDir(), CompareMemories: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d cycles x %d outputs agree (build %v cached=%v)", name, res.Cycles, res.Outputs, res.BuildTime, res.Cached)
		})
	}
}
