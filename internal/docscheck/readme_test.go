package docscheck

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// planned are packages the README may list before they exist: they are
// being added on other branches. Once a planned package exists it is
// checked like any other; remove it from here then.
var planned = map[string]bool{
	"isa/machine": true, // the task-level reference machine
	"workload":    true, // the presets of hwgen sim
}

// entry is one line of the Layout block: a directory and what it holds.
type entry struct {
	path string // slash-separated, relative to the module root, no trailing slash
	desc string
	line int // 1-based line number in README.md
}

// layoutEntries returns the lines of the fenced block that follows the
// "## Layout" heading of a README. Every line names one directory
// (a path ending in /) followed by its description; continuation lines
// are refused, so that a package is always one line.
func layoutEntries(readme string) ([]entry, error) {
	lines := strings.Split(readme, "\n")
	i := slices.Index(lines, "## Layout")
	if i < 0 {
		return nil, errors.New(`no "## Layout" heading`)
	}
	for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		if strings.HasPrefix(lines[i], "#") {
			return nil, errors.New(`no fenced block under "## Layout"`)
		}
	}
	if i == len(lines) {
		return nil, errors.New(`no fenced block under "## Layout"`)
	}
	var out []entry
	for i++; ; i++ {
		if i == len(lines) {
			return nil, errors.New("the Layout block is not closed")
		}
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			break
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			return nil, fmt.Errorf("line %d: %q continues the line before: one line per directory", i+1, l)
		}
		path, desc, _ := strings.Cut(l, " ")
		desc = strings.TrimSpace(desc)
		if !strings.HasSuffix(path, "/") || desc == "" {
			return nil, fmt.Errorf("line %d: %q: want a directory ending in / and its description", i+1, l)
		}
		out = append(out, entry{path: strings.TrimSuffix(path, "/"), desc: desc, line: i + 1})
	}
	if len(out) == 0 {
		return nil, errors.New("the Layout block is empty")
	}
	return out, nil
}

// modulePackages walks the module rooted at root and returns the
// slash-separated directories (relative to root, "." for root itself)
// that hold a Go package: non-test .go files that build in the default
// context. It skips what the go command skips (directories named
// testdata or starting with . or _, and nested modules), so it finds
// what 'go list ./...' lists.
func modulePackages(root string) ([]string, error) {
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		_, err = build.Default.ImportDir(path, 0)
		var noGo *build.NoGoError
		switch {
		case errors.As(err, &noGo):
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		pkgs = append(pkgs, filepath.ToSlash(rel))
		return nil
	})
	slices.Sort(pkgs)
	return pkgs, err
}

// layoutProblems compares the Layout entries with the packages: each
// package listed exactly once, and every entry a package, another
// directory that exists (dir reports that) or a planned package.
func layoutProblems(pkgs []string, entries []entry, dir func(string) bool) []string {
	var problems []string
	lines := map[string][]int{}
	for _, e := range entries {
		lines[e.path] = append(lines[e.path], e.line)
	}
	for _, p := range pkgs {
		switch n := len(lines[p]); {
		case n == 0:
			problems = append(problems, fmt.Sprintf("%s/: package not listed", p))
		case n > 1:
			problems = append(problems, fmt.Sprintf("%s/: listed %d times (lines %v)", p, n, lines[p]))
		}
	}
	for _, e := range entries {
		if !slices.Contains(pkgs, e.path) && !planned[e.path] && !dir(e.path) {
			problems = append(problems, fmt.Sprintf("%s/ (line %d): no such directory", e.path, e.line))
		}
	}
	return problems
}

// moduleRoot is the directory holding go.mod, above the test's own.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// TestReadmeLayout: README.md's Layout block lists every package of the
// module once, and nothing that is gone.
func TestReadmeLayout(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := layoutEntries(string(readme))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	pkgs, err := modulePackages(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pkgs, "internal/docscheck") {
		t.Fatalf("the walk of %s missed this very package; it found %v", root, pkgs)
	}
	// The listed packages, sorted, against the packages: a missing line
	// shows as -, a repeated one as +.
	var listed []string
	for _, e := range entries {
		if slices.Contains(pkgs, e.path) {
			listed = append(listed, e.path)
		}
	}
	slices.Sort(listed)
	if d := cmp.Diff(pkgs, listed); d != "" {
		t.Errorf("README.md Layout block (-packages of the module +packages listed):\n%s", d)
	}
	isDir := func(p string) bool {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil && fi.IsDir()
	}
	for _, p := range layoutProblems(pkgs, entries, isDir) {
		t.Errorf("README.md Layout block: %s", p)
	}
}

func TestLayoutEntries(t *testing.T) {
	for _, tc := range []struct {
		name, readme string
		want         []entry
		err          string
	}{
		{
			name:   "two entries",
			readme: "# x\n\n## Layout\n\n```\nhdl/       the DSL\nsim/  the simulator\n\n```\ntext\n",
			want:   []entry{{"hdl", "the DSL", 6}, {"sim", "the simulator", 7}},
		},
		{name: "no heading", readme: "# x\n```\nhdl/ the DSL\n```\n", err: `no "## Layout" heading`},
		{name: "no block", readme: "## Layout\n\ntext\n## Next\n```\nhdl/ the DSL\n```\n", err: "no fenced block"},
		{name: "not closed", readme: "## Layout\n```\nhdl/ the DSL\n", err: "not closed"},
		{name: "empty", readme: "## Layout\n```\n```\n", err: "empty"},
		{name: "continuation", readme: "## Layout\n```\nhdl/ the DSL,\n     continued\n```\n", err: "line 4: \"     continued\" continues the line before"},
		{name: "no description", readme: "## Layout\n```\nhdl/\n```\n", err: "line 3"},
		{name: "not a directory", readme: "## Layout\n```\nhdl the DSL\n```\n", err: "line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := layoutEntries(tc.readme)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(entry{})); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
		})
	}
}

func TestLayoutProblems(t *testing.T) {
	pkgs := []string{"hdl", "sim", "sim/internal/optab"}
	dirs := map[string]bool{"scripts": true}
	e := func(line int, path string) entry { return entry{path: path, desc: "d", line: line} }
	for _, tc := range []struct {
		name    string
		entries []entry
		want    []string
	}{
		{name: "each once, a plain directory, a planned package", entries: []entry{e(1, "hdl"), e(2, "sim"), e(3, "sim/internal/optab"), e(4, "scripts"), e(5, "workload")}},
		{name: "missing", entries: []entry{e(1, "hdl"), e(2, "sim")}, want: []string{"sim/internal/optab/: package not listed"}},
		{name: "twice", entries: []entry{e(1, "hdl"), e(2, "sim"), e(3, "sim/internal/optab"), e(9, "hdl")}, want: []string{"hdl/: listed 2 times (lines [1 9])"}},
		{name: "gone", entries: []entry{e(1, "hdl"), e(2, "sim"), e(3, "sim/internal/optab"), e(4, "host/infer")}, want: []string{"host/infer/ (line 4): no such directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := layoutProblems(pkgs, tc.entries, func(p string) bool { return dirs[p] })
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

// The walk finds what 'go list ./...' lists; a few packages of each kind
// (a command, an internal one, one beside testdata) stand for the rest.
func TestModulePackages(t *testing.T) {
	pkgs, err := modulePackages(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"cmd/hwgen", "hdl", "sim/internal/optab/gen", "frontend/onnx", "frontend/onnx/onnxpb"} {
		if !slices.Contains(pkgs, p) {
			t.Errorf("%s not found; found %v", p, pkgs)
		}
	}
	for _, p := range pkgs {
		if p == "." || strings.Contains(p, "testdata") || strings.HasPrefix(p, "docs") || strings.HasPrefix(p, "scripts") {
			t.Errorf("%s is no package of the module", p)
		}
	}
}
