package sim

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/sim/internal/optab"
)

// The generated code is what the operator table makes of it now (go
// generate ./sim updates it).
func TestGeneratedUpToDate(t *testing.T) {
	loop, err := os.ReadFile(optab.LoopFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		gen  func() ([]byte, error)
	}{
		{optab.OpcodeFile, optab.Opcodes},
		{optab.LoopFile, func() ([]byte, error) { return optab.Splice(loop) }},
	} {
		want, err := tc.gen()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s is stale; run go generate ./sim (-want +got):\n%s", tc.file, diff)
		}
	}
}
