package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// hwgenBin builds the hwgen binary once for the tests that run it as a
// process (signals, job engines).
func hwgenBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hwgen-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "hwgen")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = &buildError{err, string(out)}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// SIGTERM during a run with --result, like Ctrl-C: the earlier result is
// left byte for byte, the records so far go to RESULT.partial, and hwgen
// merge says the shard was interrupted instead of blaming an image.
func TestInterruptedResult(t *testing.T) {
	bin := hwgenBin(t)
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	args := []string{"run", "--model", mnistModel, "--data", "mnist", "--calib-images", "2", "--result", res}
	if r := runBin(t, bin, cleanEnv(), append(args, "--images", "2")...); r.code != 0 {
		t.Fatalf("the earlier run: exit %d\n%s", r.code, r.stderr)
	}
	earlier, _ := os.ReadFile(res)
	errFile := filepath.Join(dir, "stderr")
	ef, _ := os.Create(errFile)
	cmd := exec.Command(bin, append(args, "--images", "2000")...)
	cmd.Env, cmd.Stderr = cleanEnv(), ef
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(errFile); strings.Contains(string(b), "compiled") {
			break
		}
	}
	time.Sleep(300 * time.Millisecond) // a few images in
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	ef.Close()
	stderr, _ := os.ReadFile(errFile)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailure {
		t.Fatalf("interrupted run: %v, want exit 1\n%s", err, stderr)
	}
	if !strings.Contains(string(stderr), "r.json.partial") {
		t.Errorf("stderr %q does not name the partial file", stderr)
	}
	after, _ := os.ReadFile(res)
	if diff := cmp.Diff(string(earlier), string(after)); diff != "" {
		t.Errorf("the earlier result changed:\n%s", diff)
	}
	if _, err := os.Stat(res + ".partial"); err != nil {
		t.Errorf("no partial result: %v", err)
	}
	merged := runBin(t, bin, cleanEnv(), "merge", res)
	checkOneLineError(t, "merge of an interrupted shard", merged, "shard 0/1", "was interrupted after", "from an earlier run")
}
