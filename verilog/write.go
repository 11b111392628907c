package verilog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Marker is the file WriteDir leaves in every directory it writes: a
// manifest of the files it wrote. Only a directory holding it (or an
// empty one) is ever written again, and only the files it lists are ever
// replaced or removed, so files of your own next to an output (a
// testbench, a simulator's log directory) are kept.
const Marker = ".hwgen-output"

// markerHead is the marker's first line; the file names follow, one a
// line. A marker of an older hwgen holds the first line only.
const markerHead = "Written by hwgen. The files listed below are replaced or removed by the next run that writes this directory; other files are kept.\n"

// ErrNotOurs reports an output directory, or a file in it, that WriteDir
// refuses to replace.
var ErrNotOurs = errors.New("not written by hwgen")

// WriteDir writes files into dir. A new dir is written as a whole: into
// a temporary sibling that is then renamed. An existing dir must be empty
// or an earlier output (hold Marker); its own earlier files are
// replaced, or removed when this output no longer has them; files hwgen
// did not write are kept, and one whose name this output needs makes it
// refuse (ErrNotOurs). Every file is written to a temporary name first
// and renamed when all are written, so a failed write leaves dir as it
// was. dir itself is written into, never replaced: a symbolic link stays
// a link, the working directory stays the same directory.
func WriteDir(dir string, files []File) error {
	dir = filepath.Clean(dir)
	for _, f := range files {
		if filepath.Base(f.Name) != f.Name || f.Name == Marker || f.Name == "." || f.Name == ".." {
			return fmt.Errorf("file name %q is not allowed: want a plain file name other than %s", f.Name, Marker)
		}
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return writeNew(dir, files)
	case err != nil:
		return fmt.Errorf("output %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("output %s exists and is not a directory", dir)
	}
	own, err := ownFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(dir, f.Name)); err == nil && !own.has(f.Name) {
			return fmt.Errorf("refusing to overwrite %s in %s: hwgen did not write it; move it or choose another directory: %w", f.Name, dir, ErrNotOurs)
		}
	}
	// All files under temporary names first, then renamed.
	var tmps []string
	fail := func(err error) error {
		for _, t := range tmps {
			os.Remove(t)
		}
		return err
	}
	all := append(append([]File(nil), files...), File{Name: Marker, Data: manifest(files)})
	for _, f := range all {
		t, err := writeTemp(dir, f)
		if err != nil {
			return fail(err)
		}
		tmps = append(tmps, t)
	}
	for i, f := range all {
		if err := os.Rename(tmps[i], filepath.Join(dir, f.Name)); err != nil {
			return fail(fmt.Errorf("replace %s: %w", f.Name, err))
		}
	}
	// Earlier files of ours that this output no longer has.
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Name] = true
	}
	for _, name := range own.names {
		if !keep[name] {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove stale %s: %w", name, err)
			}
		}
	}
	return nil
}

// writeNew writes a directory that does not exist yet, as a whole.
func writeNew(dir string, files []File) error {
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
	for _, f := range append(append([]File(nil), files...), File{Name: Marker, Data: manifest(files)}) {
		if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o644); err != nil {
			return fail(fmt.Errorf("write %s: %w", f.Name, err))
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fail(fmt.Errorf("move output into %s: %w", dir, err))
	}
	return nil
}

// writeTemp writes f under a temporary name in dir (mode 0644).
func writeTemp(dir string, f File) (string, error) {
	t, err := os.CreateTemp(dir, "."+f.Name+".tmp-")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", f.Name, err)
	}
	_, werr := t.Write(f.Data)
	if werr == nil {
		werr = t.Chmod(0o644)
	}
	if cerr := t.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(t.Name())
		return "", fmt.Errorf("write %s: %w", f.Name, werr)
	}
	return t.Name(), nil
}

func manifest(files []File) []byte {
	var b bytes.Buffer
	b.WriteString(markerHead)
	for _, f := range files {
		b.WriteString(f.Name + "\n")
	}
	return b.Bytes()
}

// owned is what an existing output directory's marker says hwgen wrote.
type owned struct {
	names  []string
	legacy bool // an older marker without a list: any regular file may be replaced, none is removed
}

func (o owned) has(name string) bool {
	if o.legacy {
		return true
	}
	for _, n := range o.names {
		if n == name {
			return true
		}
	}
	return false
}

// ownFiles reads the marker of an existing directory: empty, or an
// earlier output; anything else is not ours (ErrNotOurs).
func ownFiles(dir string) (owned, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return owned{}, fmt.Errorf("output %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return owned{}, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, Marker))
	if err != nil {
		return owned{}, fmt.Errorf("refusing to write into %s: it holds files hwgen did not write (no %s); choose a new or empty directory: %w",
			dir, Marker, ErrNotOurs)
	}
	var o owned
	sc := bufio.NewScanner(bytes.NewReader(data))
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			o.legacy = line+"\n" != markerHead
			continue
		}
		if line != "" && !strings.ContainsAny(line, `/\`) && line != Marker {
			o.names = append(o.names, line)
		}
	}
	if o.legacy {
		o.names = nil
	}
	return o, nil
}
