package tooltest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/toolchain"
)

// fakeTB records how a helper ended the test; Fatalf and Skip stop the
// goroutine as the real ones do.
type fakeTB struct {
	testing.TB
	ended string // "", "fatal" or "skip"
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.ended = "fatal: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Skip(args ...any) {
	f.ended = "skip: " + fmt.Sprint(args...)
	runtime.Goexit()
}

// outcome runs fn on a fake test and returns "fatal", "skip" or "ran".
func outcome(fn func(testing.TB)) string {
	f := &fakeTB{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn(f)
	}()
	wg.Wait()
	switch {
	case f.ended == "":
		return "ran"
	case f.ended[:4] == "skip":
		return "skip"
	default:
		return "fatal"
	}
}

// A missing tool skips, or fails under RequireEnv; an installed tool is
// found; -short skips whether or not RequireEnv is set.
func TestSkip(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "faketool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	short := flag.Lookup("test.short")
	defer short.Value.Set(short.Value.String())

	for _, tc := range []struct {
		name    string
		require bool
		short   bool
		fn      func(testing.TB)
		want    string
	}{
		{"missing tool", false, false, func(t testing.TB) { Need(t, "notatool") }, "skip"},
		{"missing tool, required", true, false, func(t testing.TB) { Need(t, "notatool") }, "fatal"},
		{"installed tool, required", true, false, func(t testing.TB) { Need(t, "faketool") }, "ran"},
		{"heavy, -short", false, true, func(t testing.TB) { SkipHeavy(t, "big build") }, "skip"},
		{"heavy, -short, required", true, true, func(t testing.TB) { SkipHeavy(t, "big build") }, "skip"},
		{"heavy, no -short, required", true, false, func(t testing.TB) { SkipHeavy(t, "big build") }, "ran"},
		{"opt-in not asked, required", true, false, func(t testing.TB) { SkipUnlessEnv(t, "HWGEN_TOOLTEST_UNSET", "measure") }, "skip"},
		{"opt-in asked", false, false, func(t testing.TB) { SkipUnlessEnv(t, "PATH", "measure") }, "ran"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := ""
			if tc.require {
				req = "1"
			}
			t.Setenv(toolchain.RequireEnv, req)
			if err := short.Value.Set(fmt.Sprint(tc.short)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, outcome(tc.fn)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNeedPath(t *testing.T) {
	bin := t.TempDir()
	tool := filepath.Join(bin, "faketool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if got := Need(t, "faketool"); got != tool {
		t.Errorf("Need = %q, want %q", got, tool)
	}
}
