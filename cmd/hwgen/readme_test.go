package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
)

// readmeBlock is the fenced block of README.md that follows the line
// holding intro.
func readmeBlock(t *testing.T, intro string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), intro)
	if !ok {
		t.Fatalf("README.md has no %q", intro)
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
	want := drop(readmeBlock(t, "`hwgen sim` prints:"))
	got := drop(strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README sample (-readme +hwgen sim):\n%s", diff)
	}
}

// The README's Verilator lint of an emitted file list works as written,
// from the directory that holds rtl/.
func TestReadmeLintCommand(t *testing.T) {
	tooltest.Need(t, "verilator")
	var emit, lint string
	for _, l := range readmeBlock(t, "Use the emitted file list with any tool:") {
		switch {
		case strings.HasPrefix(l, "hwgen emit "):
			emit = l
		case strings.HasPrefix(l, "verilator --lint-only"):
			lint = l
		}
	}
	if emit == "" || lint == "" {
		t.Fatalf("README block lacks the emit or the lint line")
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
