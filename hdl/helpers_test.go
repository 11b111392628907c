package hdl_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// mark runs f and returns "hdl/<file>_test.go:<line>" of the call to mark.
// Written on one line, mark(func() { y.Set(a) }), it is the position the
// DSL must attribute to the offending call inside f.
func mark(f func()) string {
	_, file, line, ok := runtime.Caller(1)
	if !ok {
		panic("runtime.Caller failed")
	}
	f()
	return fmt.Sprintf("hdl/%s:%d", filepath.Base(file), line)
}

// wantErr is one expected elaboration error: exact position and path, and
// a phrase its message must contain.
type wantErr struct {
	Pos, Path, Phrase string
}

// splitErrors unpacks the error returned by Elaborate into its *hdl.Error
// parts, failing the test on anything else.
func splitErrors(t *testing.T, err error) []*hdl.Error {
	t.Helper()
	if err == nil {
		return nil
	}
	parts := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	}
	out := make([]*hdl.Error, len(parts))
	for i, p := range parts {
		if !errors.As(p, &out[i]) {
			t.Fatalf("error %d is %T, not *hdl.Error: %v", i, p, p)
		}
	}
	return out
}

// checkErrors elaborates top and compares its errors with want, in order.
// It also checks the text of the returned error names every position,
// path and phrase.
func checkErrors(t *testing.T, top *hdl.Module, want []wantErr) {
	t.Helper()
	d, err := elaborateNoPanic(t, top)
	if err == nil {
		t.Fatalf("Elaborate succeeded (design with %d modules), want %d error(s)", len(d.Modules), len(want))
	}
	if d != nil {
		t.Errorf("Elaborate returned a design together with an error")
	}
	errs := splitErrors(t, err)
	got := make([]wantErr, len(errs))
	for i, e := range errs {
		got[i] = wantErr{Pos: e.Pos, Path: e.Path, Phrase: e.Msg}
		if i < len(want) && strings.Contains(e.Msg, want[i].Phrase) {
			got[i].Phrase = want[i].Phrase
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors mismatch (-want +got):\n%s\nfull error:\n%v", diff, err)
	}
	text := err.Error()
	for _, w := range want {
		prefix := w.Pos + ": "
		if w.Path != "" {
			prefix += w.Path + ": "
		}
		if !strings.Contains(text, prefix) || !strings.Contains(text, w.Phrase) {
			t.Errorf("error text lacks %q ... %q:\n%s", prefix, w.Phrase, text)
		}
	}
}

// elaborateNoPanic is hdl.Elaborate, turning a panic into a test failure.
func elaborateNoPanic(t *testing.T, top *hdl.Module) (d *hdl.Design, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Elaborate panicked: %v", r)
		}
	}()
	return hdl.Elaborate(top)
}

// mustElaborate elaborates top and fails the test on any error.
func mustElaborate(t *testing.T, top *hdl.Module) *hdl.Design {
	t.Helper()
	d, err := elaborateNoPanic(t, top)
	if err != nil {
		t.Fatalf("Elaborate: %v", err)
	}
	return d
}
