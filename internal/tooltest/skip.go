// Package tooltest holds what tests need around the external tools:
// every skipped test goes through Skip, so that CI (which sets
// toolchain.RequireEnv) turns a missing tool into a failure instead of a
// silently shorter run.
package tooltest

import (
	"fmt"
	"os"
	"testing"

	"github.com/hwgen/hwgen/internal/toolchain"
)

// Reason says why a test is skipped; only a missing tool can be made a
// failure by toolchain.RequireEnv.
type Reason int

const (
	// MissingTool: the test needs a tool that is not installed.
	MissingTool Reason = iota
	// Short: the test is slow (a large Verilator build, say) and
	// go test runs with -short.
	Short
	// OptIn: the test only runs when asked to, by an environment
	// variable (measurements that print tables).
	OptIn
)

// Skip ends t as skipped, or as failed when the reason is a missing tool
// and toolchain.RequireEnv is set. It is the one way tests skip.
func Skip(t testing.TB, why Reason, msg string) {
	t.Helper()
	if why == MissingTool && os.Getenv(toolchain.RequireEnv) != "" {
		t.Fatalf("%s (%s is set, so a missing tool is a failure)", msg, toolchain.RequireEnv)
	}
	t.Skip(msg)
}

// Need returns the path of tool, or skips t (fails it under
// toolchain.RequireEnv) when the tool is not installed.
func Need(t testing.TB, tool string) string {
	t.Helper()
	p, err := toolchain.Find(tool)
	if err != nil {
		Skip(t, MissingTool, err.Error())
	}
	return p
}

// SkipHeavy skips t when go test runs with -short; what names the slow
// part. Heavy tests still run in CI, which does not pass -short.
func SkipHeavy(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		Skip(t, Short, fmt.Sprintf("%s: skipped with -short", what))
	}
}

// SkipUnlessEnv skips t unless the environment variable env is set; what
// says what the test does when it runs.
func SkipUnlessEnv(t testing.TB, env, what string) {
	t.Helper()
	if os.Getenv(env) == "" {
		Skip(t, OptIn, fmt.Sprintf("set %s=1 to %s", env, what))
	}
}
