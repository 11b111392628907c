// Package tooltest lets tests insist on the external tools hwgen is
// checked with. It lives apart from toolchain so that the testing package
// is linked into test binaries only.
package tooltest

import (
	"os"
	"testing"

	"github.com/hwgen/hwgen/internal/toolchain"
)

// Need returns the tool's path, skipping the test when it is missing, or
// failing it when toolchain.RequireEnv is set.
func Need(t testing.TB, tool string) string {
	t.Helper()
	p, err := toolchain.Find(tool)
	if err == nil {
		return p
	}
	if os.Getenv(toolchain.RequireEnv) != "" {
		t.Fatalf("%v (%s is set, so a missing tool is a failure)", err, toolchain.RequireEnv)
	}
	t.Skipf("%v", err)
	return ""
}
