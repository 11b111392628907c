package descfetch

import (
	"testing"

	"github.com/hwgen/hwgen/internal/emittest"
)

// The front end lints clean with verilator -Wall in the default
// configuration (3 lines per descriptor), in a small one where a line is
// wider than a descriptor (one line, unused high bits) with an odd number
// of queues, and with one queue (nothing is ever owed).
func TestLint(t *testing.T) {
	small := Config{Queues: 3, DescWidth: 12, LineWidth: 16, AddrWidth: 5, RingBits: 1}
	one := Config{Queues: 1, DescWidth: 20, LineWidth: 8, AddrWidth: 4, RingBits: 4}
	for name, c := range map[string]Config{"default": DefaultConfig(), "small": small, "one queue": one} {
		t.Run(name, func(t *testing.T) {
			m, err := Build(c)
			if err != nil {
				t.Fatal(err)
			}
			emittest.Lint(t, m)
		})
	}
}

// The default configuration synthesizes without latches.
func TestSynth(t *testing.T) {
	m, err := Build(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("yosys stat:\n%s", emittest.Synth(t, m))
}
