package sparse

import (
	"testing"

	"github.com/hwgen/hwgen/internal/emittest"
)

// lintConfig is small enough for a quick lint and synthesis.
func lintConfig() Config {
	c := DefaultConfig()
	c.Units, c.Lanes, c.Entries, c.Channels = 2, 4, 64, 8
	c.WeightDepth, c.TableDepth, c.AccDepth, c.IndexWidth, c.MaxKernel = 64, 16, 64, 5, 3
	return c
}

// The engine and a unit lint clean with verilator -Wall, the default
// configuration and a small one.
func TestLint(t *testing.T) {
	for name, c := range map[string]Config{"default": DefaultConfig(), "small": lintConfig()} {
		t.Run(name, func(t *testing.T) {
			m, err := Build(c)
			if err != nil {
				t.Fatal(err)
			}
			emittest.Lint(t, m)
		})
	}
}

// A unit synthesizes without latches; its logic's cells (memories as
// macros) are logged for BENCHMARKS.md ("Sparse engine").
func TestSynthUnit(t *testing.T) {
	var cells []int
	for _, lanes := range []int{1, 4} {
		c := lintConfig()
		c.Lanes, c.Macros = lanes, true
		m, err := BuildUnit(c)
		if err != nil {
			t.Fatal(err)
		}
		n, types := emittest.LogicCells(t, m)
		t.Logf("one unit, %d lanes: %d cells (%s)", lanes, n, types)
		cells = append(cells, n)
	}
	if cells[1] <= cells[0] {
		t.Errorf("4 lanes take %d cells, 1 lane %d: the lanes' multipliers are missing", cells[1], cells[0])
	}
}
