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

// startSlurm starts the single-node Slurm of scripts/slurm-local.sh in a
// folder of the test's and returns the environment that reaches it; the
// daemons stop with the test. It needs root (slurmd runs the jobs as
// their submitter and root here) and Debian's slurm-wlm and munge.
func startSlurm(t *testing.T) []string {
	t.Helper()
	for _, tool := range []string{"sbatch", "slurmctld", "slurmd", "munged"} {
		tooltest.Need(t, tool)
	}
	if os.Geteuid() != 0 {
		tooltest.Skip(t, tooltest.MissingTool, "a single-node Slurm needs root (slurmd starts the jobs)")
	}
	state := t.TempDir()
	env := cleanEnv("HWGEN_SLURM_DIR=" + state)
	script := filepath.Join("..", "..", "scripts", "slurm-local.sh")
	// Stop first registered, so that daemons a failed start left running
	// stop too (a later test would find their ports taken).
	t.Cleanup(func() {
		stop := exec.Command("bash", script, "stop")
		stop.Env = env
		stop.Run()
	})
	start := exec.Command("bash", script, "start")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("%s start: %v\n%s", script, err, out)
	}
	return append(env, "SLURM_CONF="+filepath.Join(state, "slurm.conf"))
}

// sbatch submits a job array and waits for it to end.
func sbatch(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("sbatch", append([]string{"--wait", "--quiet"}, args...)...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sbatch %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// A sharded run on a real job engine: a single-node Slurm runs an array
// of hwgen run shards (mnist-7 on 6 images) and the shipped
// examples/shard/slurm-array.sh (a fuzz campaign of 4 linted designs);
// hwgen merge of each array's results prints exactly the unsharded
// report.
func TestSlurmArray(t *testing.T) {
	tooltest.SkipHeavy(t, "a single-node Slurm")
	env := startSlurm(t)
	bin := hwgenBin(t)
	dir := t.TempDir()
	model, _ := filepath.Abs(mnistModel)

	t.Run("run", func(t *testing.T) {
		args := []string{"run", "--model", model, "--data", "mnist", "--images", "6", "--calib-images", "7"}
		whole := runBin(t, bin, cleanEnv(), args...)
		if whole.code != 0 {
			t.Fatalf("unsharded: exit %d\n%s", whole.code, whole.stderr)
		}
		job := bin + " " + strings.Join(args, " ") + " --shard-from-env --result " + dir + "/run-$SLURM_ARRAY_TASK_ID.json"
		sbatch(t, env, "--array=0-1", "--chdir", dir, "-o", dir+"/run-%a.log", "--wrap", job)
		merged := runBin(t, bin, cleanEnv(), "merge", filepath.Join(dir, "run-0.json"), filepath.Join(dir, "run-1.json"))
		if merged.code != 0 {
			t.Fatalf("merge: exit %d\n%s", merged.code, merged.stderr)
		}
		if diff := cmp.Diff(whole.stdout, merged.stdout); diff != "" {
			t.Errorf("merged report differs from the unsharded one (-unsharded +merged):\n%s", diff)
		}
	})

	t.Run("the shipped script", func(t *testing.T) {
		tooltest.Need(t, "verilator")
		fuzz := []string{"verify", "fuzz", "--seed", "1", "--count", "4", "--cycles", "1000", "--lint-only"}
		whole := runBin(t, bin, cleanEnv(), fuzz...)
		if whole.code != 0 {
			t.Fatalf("unsharded: exit %d\n%s", whole.code, whole.stderr)
		}
		script, _ := filepath.Abs(filepath.Join("..", "..", "examples", "shard", "slurm-array.sh"))
		results := filepath.Join(dir, "results")
		jobEnv := append(env, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "HWGEN_RESULTS="+results,
			"HWGEN_FUZZ_COUNT=4", "HWGEN_FUZZ_ARGS=--lint-only")
		// The script's own --array, CPUs and memory are a cluster's; the
		// one node here takes two small tasks.
		sbatch(t, jobEnv, "--array=1-2", "--cpus-per-task=1", "--mem=1G", "--chdir", dir, "-o", dir+"/fuzz-%a.log", script)
		merged := runBin(t, bin, cleanEnv(), "merge", filepath.Join(results, "fuzz-1.json"), filepath.Join(results, "fuzz-2.json"))
		if merged.code != 0 {
			t.Fatalf("merge: exit %d\n%s", merged.code, merged.stderr)
		}
		if diff := cmp.Diff(whole.stdout, merged.stdout); diff != "" {
			t.Errorf("merged report differs from the unsharded one (-unsharded +merged):\n%s", diff)
		}
	})
}
