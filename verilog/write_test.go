package verilog_test

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/verilog"
)

// tree lists the files under dir (relative paths) with their contents.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == verilog.Marker {
			return err
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[rel] = string(b)
		return nil
	})
	return got
}

// Files a user added to an output directory survive the next write; the
// earlier output's own files are replaced or removed; a file of the
// user's that the output would overwrite makes it refuse.
func TestWriteDirKeepsForeignFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rtl")
	if err := verilog.WriteDir(out, []verilog.File{{Name: "a.v", Data: []byte("a1")}, {Name: "old.v", Data: []byte("o")}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "my_tb.v"), []byte("mine"), 0o644)
	os.Mkdir(filepath.Join(out, "sim"), 0o755)
	os.WriteFile(filepath.Join(out, "sim", "run.log"), []byte("log"), 0o644)
	if err := verilog.WriteDir(out, []verilog.File{{Name: "a.v", Data: []byte("a2")}, {Name: "b.v", Data: []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.v": "a2", "b.v": "b", "my_tb.v": "mine", filepath.Join("sim", "run.log"): "log"}
	if diff := cmp.Diff(want, tree(t, out)); diff != "" {
		t.Errorf("after the rewrite (-want +got):\n%s", diff)
	}
	err := verilog.WriteDir(out, []verilog.File{{Name: "my_tb.v", Data: []byte("x")}})
	if !errors.Is(err, verilog.ErrNotOurs) {
		t.Fatalf("overwriting a user's file: %v, want ErrNotOurs", err)
	}
	if diff := cmp.Diff(want, tree(t, out)); diff != "" {
		t.Errorf("after the refused write (-want +got):\n%s", diff)
	}
	var stray []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if n := e.Name(); n != verilog.Marker && want[n] == "" && n != "sim" {
			stray = append(stray, n)
		}
	}
	sort.Strings(stray)
	if len(stray) > 0 {
		t.Errorf("temporary files left: %v", stray)
	}
}

// An output directory reached through a symbolic link is written into:
// the link stays a link.
func TestWriteDirThroughSymlink(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	os.Mkdir(real, 0o755)
	link := filepath.Join(parent, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := verilog.WriteDir(link, []verilog.File{{Name: "a.v", Data: []byte("a")}}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link is no longer a symbolic link: %v %v", st.Mode(), err)
	}
	if diff := cmp.Diff(map[string]string{"a.v": "a"}, tree(t, real)); diff != "" {
		t.Errorf("real directory (-want +got):\n%s", diff)
	}
}
