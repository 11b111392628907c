package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
)

// docBlock is the fenced block of the repository's file doc (a path
// such as README.md or docs/cli.md) that follows the line holding intro.
func docBlock(t *testing.T, doc, intro string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), intro)
	if !ok {
		t.Fatalf("%s has no %q", doc, intro)
	}
	_, rest, _ = strings.Cut(rest, "```")
	_, rest, _ = strings.Cut(rest, "\n") // the fence's language
	block, _, _ := strings.Cut(rest, "```")
	return strings.Split(strings.TrimSuffix(block, "\n"), "\n")
}

// The README's sample output of hwgen sim is what it prints (but for the
// wall-clock speed).
func TestReadmeSimOutput(t *testing.T) {
	code, stdout, stderr := capture(t, "sim")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	drop := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if !strings.HasPrefix(l, "speed ") {
				out = append(out, l)
			}
		}
		return out
	}
	want := drop(docBlock(t, "README.md", "`hwgen sim` prints:"))
	got := drop(strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README sample (-readme +hwgen sim):\n%s", diff)
	}
}

// The Verilator lint of an emitted file list in docs/cli.md works as
// written, from the directory that holds rtl/.
func TestDocsLintCommand(t *testing.T) {
	tooltest.Need(t, "verilator")
	var emit, lint string
	for _, l := range docBlock(t, "docs/cli.md", "Use the emitted file list with any tool:") {
		switch {
		case strings.HasPrefix(l, "hwgen emit "):
			emit = l
		case strings.HasPrefix(l, "verilator --lint-only"):
			lint = l
		}
	}
	if emit == "" || lint == "" {
		t.Fatalf("docs/cli.md block lacks the emit or the lint line")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if code, _, stderr := capture(t, strings.Fields(emit)[1:]...); code != exitOK {
		t.Fatalf("%s: exit %d: %s", emit, code, stderr)
	}
	if out, err := exec.Command("sh", "-c", lint).CombinedOutput(); err != nil {
		t.Errorf("%s: %v\n%s", lint, err, out)
	}
}

// The go-module step of scripts/setup.sh (go mod download) leaves go.sum
// as committed: a fresh clone stays clean after the set-up. It runs on
// copies of go.mod and go.sum, from the module cache only.
func TestSetupKeepsGoSum(t *testing.T) {
	setup, err := os.ReadFile(filepath.Join("..", "..", "scripts", "setup.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(setup), "\ngo mod download\n") {
		t.Fatal("scripts/setup.sh no longer runs go mod download: update this test")
	}
	dir := t.TempDir()
	var sum []byte
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "go.sum" {
			sum = b
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// -modfile: the module's packages, the copied go.mod and go.sum.
	cmd := exec.Command("go", "mod", "download", "-modfile="+filepath.Join(dir, "go.mod"))
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		tooltest.Skip(t, tooltest.MissingTool, fmt.Sprintf("go mod download from the module cache: %v\n%s", err, out))
	}
	after, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(sum), "\n"), strings.Split(string(after), "\n")); diff != "" {
		t.Errorf("go mod download changes go.sum (-committed +after):\n%s", diff)
	}
}
