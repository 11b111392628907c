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
	type file struct {
		file string
		gen  func() ([]byte, error)
	}
	files := []file{{optab.OpcodeFile, optab.Opcodes}}
	for _, f := range optab.LoopFiles {
		loop, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{f, func() ([]byte, error) { return optab.Splice(loop) }})
	}
	for _, tc := range files {
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
