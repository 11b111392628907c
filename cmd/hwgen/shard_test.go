package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/conformance"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/shard"
)

// shardEnvVars are the job engines' variables, which the test sets itself
// and must not inherit.
var shardEnvVars = []string{shard.EnvK8sIndex, shard.EnvSlurmID, shard.EnvSlurmCount, shard.EnvSlurmMin,
	shard.EnvSlurmMax, shard.EnvSlurmStep, shard.EnvBazelIndex, shard.EnvBazelTotal, shard.EnvBazelStatus}

// cleanEnv is the environment without any job engine's variables, plus extra.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(shardEnvVars, name) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

type procResult struct {
	stdout, stderr string
	code           int
}

// runBin runs the hwgen binary to completion.
func runBin(t *testing.T, bin string, env []string, args ...string) procResult {
	t.Helper()
	p := startBin(t, bin, env, args...)
	return p.wait(t)
}

type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func startBin(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...)}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *proc) wait(t *testing.T) procResult {
	t.Helper()
	err := p.cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return procResult{p.stdout.String(), p.stderr.String(), code}
}

// A run spread over four processes — one per way of naming a shard:
// the flag, a Slurm array counted from 1, a Kubernetes Indexed Job, Bazel —
// merges into exactly what the unsharded run prints, and a missing or
// damaged shard is one error naming it.
func TestShardedRunsAsProcesses(t *testing.T) {
	bin := hwgenBin(t)
	for _, tc := range []struct {
		name string
		need func(t *testing.T)
		args []string
	}{
		{name: "conformance", need: func(t *testing.T) {
			if _, err := os.Stat(conformance.DefaultDir); err != nil {
				tooltest.Skip(t, tooltest.MissingTool, "the ONNX node tests are not installed (apt-get install libonnx-testdata): "+err.Error())
			}
		}, args: []string{"conformance"}},
		// Lint only: a cross-checked design costs a Verilator build of
		// half a minute; linting exercises the same records and coverage.
		{name: "run", need: func(t *testing.T) {},
			args: []string{"run", "--model", mnistModel, "--data", "mnist", "--images", "6", "--calib-images", "7"}},
		{name: "fuzz", need: func(t *testing.T) { tooltest.Need(t, "verilator") },
			args: []string{"verify", "fuzz", "--lint-only", "--count", "5", "--seed", "40"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.need(t)
			out := t.TempDir()
			whole := runBin(t, bin, cleanEnv(), tc.args...)
			if whole.code != 0 {
				t.Fatalf("unsharded %v: exit %d\n%s", tc.args, whole.code, whole.stderr)
			}
			res := func(i int) string { return filepath.Join(out, "s"+string(rune('0'+i))+".json") }
			status := filepath.Join(out, "bazel-status")
			shards := []struct {
				env  []string
				args []string
			}{
				{nil, []string{"--shard", "0/4"}},
				{[]string{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4"}, nil},
				{[]string{"JOB_COMPLETION_INDEX=2"}, []string{"--shard-from-env", "--shards", "4"}},
				{[]string{"TEST_SHARD_INDEX=3", "TEST_TOTAL_SHARDS=4", "TEST_SHARD_STATUS_FILE=" + status}, nil},
			}
			var procs []*proc
			for i, s := range shards {
				args := append(append(slices.Clone(tc.args), s.args...), "--result", res(i))
				procs = append(procs, startBin(t, bin, cleanEnv(s.env...), args...))
			}
			for i, p := range procs {
				r := p.wait(t)
				if r.code != 0 {
					t.Fatalf("shard %d: exit %d\n%s", i, r.code, r.stderr)
				}
				if want := "shard " + string(rune('0'+i)) + "/4 "; !strings.HasPrefix(r.stdout, want) {
					t.Errorf("shard %d's report starts %q, want %q (it is a part)", i, firstLine(r.stdout), want)
				}
			}
			if _, err := os.Stat(status); err != nil {
				t.Errorf("the Bazel shard did not touch %s: %v", shard.EnvBazelStatus, err)
			}
			merged := runBin(t, bin, cleanEnv(), "merge", res(3), res(1), res(0), res(2))
			if merged.code != 0 {
				t.Fatalf("merge: exit %d\n%s", merged.code, merged.stderr)
			}
			if diff := cmp.Diff(whole.stdout, merged.stdout); diff != "" {
				t.Errorf("merged report differs from the unsharded one (-unsharded +merged):\n%s", diff)
			}

			missing := runBin(t, bin, cleanEnv(), "merge", res(0), res(1), res(3))
			checkOneLineError(t, "merge without shard 2", missing, "shard 2/4 is missing")

			b, err := os.ReadFile(res(1))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(res(1), b[:len(b)-200], 0o644); err != nil {
				t.Fatal(err)
			}
			broken := runBin(t, bin, cleanEnv(), "merge", res(0), res(1), res(2), res(3))
			checkOneLineError(t, "merge with shard 1 truncated", broken, "s1.json", "leave shard 1/4 missing")
		})
	}
}

// checkOneLineError checks a failed merge: exit status 1, nothing on
// standard output (no partial report), one line on standard error.
func checkOneLineError(t *testing.T, what string, r procResult, want ...string) {
	t.Helper()
	if r.code != exitFailure || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, no report, one line", what, r.code, r.stdout, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("%s: %q does not name %q", what, r.stderr, w)
		}
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// The job-engine examples run command lines hwgen accepts, and the
// Kubernetes Job has as many completions as the command has shards.
func TestShardExamplesParse(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "shard", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// hwgenLines are the hwgen command lines of a script, continuations
	// joined, shell quoting and variables simplified away.
	hwgenLines := func(text string) [][]string {
		text = strings.NewReplacer("\\\n", " ", "\n              ", " ", `"`, "", "|| [ $? -eq 1 ]", "").Replace(text)
		text = regexp.MustCompile(`\$\{[A-Z_]+:-([^}]*)\}`).ReplaceAllString(text, "$1") // ${VAR:-default}: the default
		var cmds [][]string
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- >-"))
			if strings.HasPrefix(l, "hwgen ") {
				cmds = append(cmds, strings.Fields(l)[1:])
			}
		}
		return cmds
	}
	k8s, slurm := read("k8s-indexed-job.yaml"), read("slurm-array.sh")
	cmds := map[string][][]string{"k8s-indexed-job.yaml": hwgenLines(k8s), "slurm-array.sh": hwgenLines(slurm)}
	for file, lines := range cmds {
		if len(lines) == 0 {
			t.Errorf("%s: no hwgen command line found", file)
		}
		for _, args := range lines {
			t.Logf("%s: hwgen %s", file, strings.Join(args, " "))
			var c cli
			p, err := newParser(&c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Parse(args); err != nil {
				t.Errorf("%s: hwgen %s: %v", file, strings.Join(args, " "), err)
			}
		}
	}
	completions := regexp.MustCompile(`completions: (\d+)`).FindStringSubmatch(k8s)
	shards := regexp.MustCompile(`--shards (\d+)`).FindStringSubmatch(k8s)
	if completions == nil || shards == nil || completions[1] != shards[1] {
		t.Errorf("k8s-indexed-job.yaml: completions %v and --shards %v differ", completions, shards)
	}
}
