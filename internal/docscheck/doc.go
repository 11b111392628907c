// Package docscheck keeps the documentation in step with the code. Its
// tests read README.md and walk the module: the Layout block of the README
// lists every Go package of the module exactly once, one line each with a
// short description, and names no directory that is gone (but for the
// packages about to be added, listed in the test).
//
// The package has no code of its own; run it with
//
//	go test ./internal/docscheck/
package docscheck
