package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/hwgen/hwgen/host"
)

// Output paths are checked before a run, so that a run of minutes is not
// wasted on a file that cannot be written; the errors are the caller's
// (exit status 2) and name the flag and the path, not a temporary file.

// checkOutDir proves that dir (an output directory of flag) can be
// written, or made: an existing directory is probed, else its nearest
// existing ancestor. Nothing is made yet (writeFileAtomic makes it), so
// a run refused later leaves no empty directory behind.
func checkOutDir(flag, dir string) error {
	at := dir
	for {
		st, err := os.Stat(at)
		if err == nil {
			if !st.IsDir() {
				if at == dir {
					return usagef("%s %s: exists and is not a directory", flag, dir)
				}
				return usagef("%s %s: cannot create the directory: %s is not a directory", flag, dir, at)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return usagef("%s %s: %v", flag, dir, cause(err))
		}
		up := filepath.Dir(at)
		if up == at {
			break
		}
		at = up
	}
	if err := probe(at); err != nil {
		if at != dir {
			return usagef("%s %s: cannot create the directory in %s: %v", flag, dir, at, err)
		}
		return usagef("%s %s: cannot write there: %v", flag, dir, err)
	}
	return nil
}

// checkOutFile proves that path (an output file of flag) can be written:
// it is not a directory and its directory exists and is writable.
func checkOutFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s %s: is a directory; give a file name", flag, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return usagef("%s %s: directory %s: %v", flag, path, dir, cause(err))
	}
	if !st.IsDir() {
		return usagef("%s %s: %s is not a directory", flag, path, dir)
	}
	if err := probe(dir); err != nil {
		return usagef("%s %s: cannot write to %s: %v", flag, path, dir, err)
	}
	return nil
}

// checkOutputs checks the --out directory and the --timeline and --vcd
// files of hwgen sim and run, those given.
func checkOutputs(out, timeline, vcd string) error {
	if out != "" {
		if err := checkOutDir("--out", out); err != nil {
			return err
		}
	}
	for _, f := range []struct{ flag, path string }{{"--timeline", timeline}, {"--vcd", vcd}} {
		if f.path != "" {
			if err := checkOutFile(f.flag, f.path); err != nil {
				return err
			}
		}
	}
	return nil
}

// probe creates and removes a file in dir.
func probe(dir string) error {
	f, err := os.CreateTemp(dir, ".hwgen-probe-")
	if err != nil {
		return cause(err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// cause is the operating system's reason without the path (which may be
// a temporary name the user never gave).
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// interrupted is a context cancelled by Ctrl-C (SIGINT) or SIGTERM:
// a run then stops with an error and removes its temporary files (a
// waveform is written whole or not at all) instead of being killed.
// stop restores the default handling.
func interrupted() (context.Context, func()) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// interruptible is the host option of a run that interrupted stops.
func interruptible() (host.Option, func()) {
	ctx, stop := interrupted()
	return host.WithContext(ctx), stop
}

// outputMode is the mode of every file hwgen writes: readable by all,
// as a file created by os.Create under the usual umask 022.
const outputMode = 0o644

// writeFileAtomic writes path through a temporary file in its directory.
func writeFileAtomic(path string, write func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil { // an --out directory not made yet
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(outputMode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
