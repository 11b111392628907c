package hdl

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// callerPos returns "file.go:line" of the first stack frame outside this
// package's non-test files: the place in the user's code that built the
// value, so errors can point at it.
//
// It runs for every expression built, so it is cheap: a short unwind,
// and each return address is symbolized once (posCache).
func callerPos() string {
	var pcs [6]uintptr
	n := runtime.Callers(3, pcs[:])
	for _, pc := range pcs[:n] {
		if p := posOf(pc); p != "" {
			return p
		}
	}
	if n < len(pcs) {
		return "?"
	}
	// Deep inside this package (rare): the long way.
	more := make([]uintptr, 64)
	n = runtime.Callers(3, more)
	for _, pc := range more[:n] {
		if p := posOf(pc); p != "" {
			return p
		}
	}
	return "?"
}

// posCache maps a return address to the position of its first frame
// outside this package, or "" when all its frames (inlined ones
// included) are inside.
var posCache sync.Map

func posOf(pc uintptr) string {
	if p, ok := posCache.Load(pc); ok {
		return p.(string)
	}
	pos := ""
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		inHDL := strings.Contains(f.Function, "/hdl.") && !strings.HasSuffix(f.File, "_test.go")
		if !inHDL && f.File != "" {
			pos = fmt.Sprintf("%s:%d", shortFile(f.File), f.Line)
			break
		}
		if !more {
			break
		}
	}
	posCache.Store(pc, pos)
	return pos
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
