package verilog

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteDir writes files into dir atomically: they are first written to a
// temporary sibling directory, which then replaces dir. On any error dir is
// left as it was (absent, or with its previous contents).
func WriteDir(dir string, files []File) error {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("create output parent: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("create temporary output directory: %w", err)
	}
	fail := func(err error) error {
		os.RemoveAll(tmp)
		return err
	}
	for _, f := range files {
		if filepath.Base(f.Name) != f.Name {
			return fail(fmt.Errorf("file name %q must not contain a directory", f.Name))
		}
		if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o644); err != nil {
			return fail(fmt.Errorf("write %s: %w", f.Name, err))
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fail(err)
	}
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fail(fmt.Errorf("output %s exists and is not a directory", dir))
		}
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fail(fmt.Errorf("replace %s: %w", dir, err))
		}
		if err := os.Rename(tmp, dir); err != nil {
			os.Rename(old, dir)
			return fail(fmt.Errorf("replace %s: %w", dir, err))
		}
		os.RemoveAll(old)
		return nil
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fail(fmt.Errorf("move output into %s: %w", dir, err))
	}
	return nil
}
