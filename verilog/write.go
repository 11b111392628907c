package verilog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Marker is the file WriteDir leaves in every directory it writes. Only a
// directory holding it (or an empty one) is ever replaced, so pointing the
// output at a directory of your own never deletes your files.
const Marker = ".hwgen-output"

// ErrNotOurs reports an output directory that WriteDir refuses to replace.
var ErrNotOurs = errors.New("not written by hwgen")

// WriteDir writes files into dir atomically: they are first written to a
// temporary sibling directory, which then replaces dir. On any error dir is
// left as it was (absent, or with its previous contents). An existing dir
// is replaced only if it is empty or was written by WriteDir (holds Marker).
func WriteDir(dir string, files []File) error {
	dir = filepath.Clean(dir)
	if err := replaceable(dir); err != nil {
		return err
	}
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
	marker := []byte("Written by hwgen. This directory is replaced as a whole by the next run that writes it.\n")
	if err := os.WriteFile(filepath.Join(tmp, Marker), marker, 0o644); err != nil {
		return fail(fmt.Errorf("write %s: %w", Marker, err))
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

// replaceable checks that dir is absent, empty, or an earlier output.
func replaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return fmt.Errorf("output %s exists and is not a directory", dir)
		}
		return fmt.Errorf("output %s: %w", dir, err)
	case len(entries) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, Marker)); err == nil {
		return nil
	}
	return fmt.Errorf("refusing to replace %s: it holds files hwgen did not write (no %s); choose a new or empty directory: %w",
		dir, Marker, ErrNotOurs)
}
