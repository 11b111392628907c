// Package check validates configuration fields with errors that name the
// field, the value and what is allowed, so every block's Config.Validate
// reads the same way.
package check

import (
	"errors"
	"fmt"
)

// ErrConfig marks every validation error, so callers (the CLI) can tell a
// bad configuration (exit 2) from a failed run.
var ErrConfig = errors.New("invalid configuration")

// FieldError is one bad field.
type FieldError struct {
	Field   string // dotted path, e.g. "sram.depth"
	Value   any
	Allowed string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s = %v is not allowed: %s", e.Field, e.Value, e.Allowed)
}

func (e *FieldError) Unwrap() error { return ErrConfig }

// Range requires lo <= v <= hi.
func Range(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return &FieldError{field, v, fmt.Sprintf("must be in %d..%d", lo, hi)}
	}
	return nil
}

// Positive requires v >= 1.
func Positive(field string, v int) error {
	if v < 1 {
		return &FieldError{field, v, "must be a positive whole number"}
	}
	return nil
}

// PowerOfTwo requires v to be a power of two in lo..hi, saying why.
func PowerOfTwo(field string, v, lo, hi int, why string) error {
	if v < lo || v > hi || v&(v-1) != 0 {
		return &FieldError{field, v, fmt.Sprintf("must be a power of two in %d..%d (%s)", lo, hi, why)}
	}
	return nil
}

// All joins the non-nil errors (nil if there are none), so a user sees
// every bad field at once.
func All(errs ...error) error { return errors.Join(errs...) }

// Prefix returns a function naming fields under path ("npu.systolic" +
// "rows" is "npu.systolic.rows"; an empty path leaves names as they are),
// for the Check(path) of a configuration that others embed.
func Prefix(path string) func(name string) string {
	return func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
}

// Set collects the checks of a configuration's fields, so a check that
// relates several fields runs only when each of them is valid on its own
// (named, not by position).
type Set struct {
	errs []error
	bad  map[string]bool
}

// Add records the result of a check (nil: passed).
func (s *Set) Add(err error) {
	if err == nil {
		return
	}
	s.errs = append(s.errs, err)
	var fe *FieldError
	if errors.As(err, &fe) {
		if s.bad == nil {
			s.bad = map[string]bool{}
		}
		s.bad[fe.Field] = true
	}
}

// OK reports whether every named field passed its checks so far.
func (s *Set) OK(fields ...string) bool {
	for _, f := range fields {
		if s.bad[f] {
			return false
		}
	}
	return true
}

// Err joins every failed check (nil if all passed).
func (s *Set) Err() error { return All(s.errs...) }
