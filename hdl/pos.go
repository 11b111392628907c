package hdl

import (
	"fmt"
	"runtime"
	"strings"
)

// callerPos returns "file.go:line" of the first stack frame outside this
// package's non-test files: the place in the user's code that built the
// value, so errors can point at it.
func callerPos() string {
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		inHDL := strings.Contains(f.Function, "/hdl.") && !strings.HasSuffix(f.File, "_test.go")
		if !inHDL && f.File != "" {
			return fmt.Sprintf("%s:%d", shortFile(f.File), f.Line)
		}
		if !more {
			return "?"
		}
	}
}

// shortFile keeps the last two path elements: enough to find the file,
// short enough to read.
func shortFile(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}

// Error is an elaboration error: where the user built the offending thing,
// which signal it concerns, and what is wrong.
type Error struct {
	Pos  string // file:line in the user's code
	Path string // module.signal
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.Path, e.Msg)
}
