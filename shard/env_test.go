package shard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func env(kv map[string]string) Getenv {
	return func(name string) (string, bool) {
		v, ok := kv[name]
		return v, ok
	}
}

func TestResolve(t *testing.T) {
	slurm := func(id, count, lo, hi, step string) map[string]string {
		m := map[string]string{EnvSlurmID: id, EnvSlurmCount: count, EnvSlurmMin: lo, EnvSlurmMax: hi}
		if step != "" {
			m[EnvSlurmStep] = step
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		opt     Options
		env     map[string]string
		want    Spec
		source  string
		wantErr []string // all in the error
	}{
		{name: "nothing: the whole run", want: Whole},
		{name: "flag", opt: Options{Shard: "2/5"}, want: Spec{2, 5}, source: "--shard"},
		{name: "flag with agreeing --shards", opt: Options{Shard: "2/5", Shards: 5}, want: Spec{2, 5}, source: "--shard"},
		{name: "flag beats the environment", opt: Options{Shard: "0/1"}, env: slurm("3", "4", "0", "3", ""), want: Whole, source: "--shard"},
		{name: "bad flag", opt: Options{Shard: "5/5"}, wantErr: []string{"--shard", `"5/5"`, "0 ≤ index < 5"}},
		{name: "flag and --shards disagree", opt: Options{Shard: "1/4", Shards: 3}, wantErr: []string{"--shard 1/4", "--shards 3", "disagree"}},
		{name: "flag and --shard-from-env", opt: Options{Shard: "1/4", FromEnv: true}, wantErr: []string{"--shard 1/4", "--shard-from-env", "one of them"}},
		{name: "negative --shards", opt: Options{Shards: -2}, wantErr: []string{"--shards -2", "positive"}},
		{name: "--shards alone", opt: Options{Shards: 4}, wantErr: []string{"--shards 4", "every process would run every item"}},
		{name: "--shards 1 alone", opt: Options{Shards: 1}, want: Whole},
		{name: "--shard-from-env with no engine", opt: Options{FromEnv: true}, wantErr: []string{"--shard-from-env", EnvK8sIndex, EnvSlurmID, EnvBazelIndex}},

		{name: "kubernetes", opt: Options{Shards: 8, FromEnv: true}, env: map[string]string{EnvK8sIndex: "7"}, want: Spec{7, 8}, source: EnvK8sIndex},
		{name: "kubernetes without --shards", env: map[string]string{EnvK8sIndex: "3"}, wantErr: []string{"JOB_COMPLETION_INDEX=3", "--shards N"}},
		{name: "kubernetes index beyond --shards", opt: Options{Shards: 4}, env: map[string]string{EnvK8sIndex: "4"}, wantErr: []string{"JOB_COMPLETION_INDEX=4", "--shards 4", "0 ≤ index < 4"}},
		{name: "kubernetes index not a number", opt: Options{Shards: 4}, env: map[string]string{EnvK8sIndex: "x"}, wantErr: []string{`JOB_COMPLETION_INDEX="x"`, "whole number"}},
		{name: "empty variable is unset", env: map[string]string{EnvK8sIndex: ""}, want: Whole},

		{name: "slurm from 0", env: slurm("2", "4", "0", "3", ""), want: Spec{2, 4}, source: EnvSlurmID},
		{name: "slurm from 1", env: slurm("1", "4", "1", "4", ""), want: Spec{0, 4}, source: EnvSlurmID},
		{name: "slurm from 1, last", env: slurm("4", "4", "1", "4", ""), want: Spec{3, 4}, source: EnvSlurmID},
		{name: "slurm with a step", env: slurm("20", "4", "10", "40", "10"), want: Spec{1, 4}, source: EnvSlurmID},
		{name: "slurm without MIN", env: map[string]string{EnvSlurmID: "1", EnvSlurmCount: "2"}, want: Spec{1, 2}, source: EnvSlurmID},
		{name: "slurm with agreeing --shards", opt: Options{Shards: 4}, env: slurm("1", "4", "1", "4", ""), want: Spec{0, 4}, source: EnvSlurmID},
		{name: "slurm with other --shards", opt: Options{Shards: 5}, env: slurm("1", "4", "1", "4", ""), wantErr: []string{"--shards 5", EnvSlurmCount, "4 shards"}},
		{name: "slurm list array", env: slurm("4", "3", "1", "9", ""), wantErr: []string{"not a plain range", "--array=0-2"}},
		{name: "slurm without count", env: map[string]string{EnvSlurmID: "1"}, wantErr: []string{"SLURM_ARRAY_TASK_ID=1", EnvSlurmCount, EnvSlurmMax}},
		{name: "old slurm: count from min, max, step", env: map[string]string{EnvSlurmID: "7", EnvSlurmMin: "1", EnvSlurmMax: "9", EnvSlurmStep: "2"},
			want: Spec{3, 5}, source: EnvSlurmID},
		{name: "slurm id outside", env: map[string]string{EnvSlurmID: "0", EnvSlurmCount: "4", EnvSlurmMin: "1"}, wantErr: []string{"SLURM_ARRAY_TASK_ID=0", "not in the array 1-4"}},

		{name: "bazel", env: map[string]string{EnvBazelIndex: "1", EnvBazelTotal: "3"}, want: Spec{1, 3}, source: EnvBazelIndex},
		{name: "bazel without total", env: map[string]string{EnvBazelIndex: "1"}, wantErr: []string{"TEST_SHARD_INDEX=1", EnvBazelTotal}},
		{name: "bazel index too big", env: map[string]string{EnvBazelIndex: "3", EnvBazelTotal: "3"}, wantErr: []string{"TEST_SHARD_INDEX=3", "TEST_TOTAL_SHARDS=3", "out of range"}},

		{name: "two engines agree", opt: Options{Shards: 4}, env: map[string]string{EnvK8sIndex: "1", EnvBazelIndex: "1", EnvBazelTotal: "4"},
			want: Spec{1, 4}, source: EnvK8sIndex + ", " + EnvBazelIndex},
		{name: "two engines disagree", env: map[string]string{EnvSlurmID: "1", EnvSlurmCount: "4", EnvBazelIndex: "2", EnvBazelTotal: "4"},
			wantErr: []string{"two different shards", "1/4 from SLURM_ARRAY_TASK_ID", "2/4 from TEST_SHARD_INDEX"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, src, err := Resolve(tc.opt, env(tc.env))
			if tc.wantErr != nil {
				var se *Error
				if err == nil || !errors.As(err, &se) {
					t.Fatalf("Resolve = %v, %q, %v; want a *shard.Error", got, src, err)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if src != tc.source {
				t.Errorf("source %q, want %q", src, tc.source)
			}
		})
	}
}

// Honouring Bazel's sharding touches the status file; overriding it with
// --shard does not.
func TestResolveTouchesBazelStatusFile(t *testing.T) {
	for _, tc := range []struct {
		opt     Options
		touched bool
	}{
		{Options{}, true},
		{Options{Shard: "0/1"}, false},
	} {
		status := filepath.Join(t.TempDir(), "status")
		e := env(map[string]string{EnvBazelIndex: "0", EnvBazelTotal: "2", EnvBazelStatus: status})
		if _, _, err := Resolve(tc.opt, e); err != nil {
			t.Fatalf("Resolve(%+v): %v", tc.opt, err)
		}
		_, err := os.Stat(status)
		if touched := err == nil; touched != tc.touched {
			t.Errorf("Resolve(%+v): status file touched %v, want %v (%v)", tc.opt, touched, tc.touched, err)
		}
	}
	e := env(map[string]string{EnvBazelIndex: "0", EnvBazelTotal: "2", EnvBazelStatus: filepath.Join(t.TempDir(), "no", "such", "dir")})
	if _, _, err := Resolve(Options{}, e); err == nil || !strings.Contains(err.Error(), EnvBazelStatus) {
		t.Errorf("Resolve with an unwritable status file: %v, want an error naming %s", err, EnvBazelStatus)
	}
}
