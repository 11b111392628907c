package shard

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The flags a command takes to be told its shard; errors name them.
const (
	FlagShard   = "--shard"          // i/N
	FlagShards  = "--shards"         // N, for engines whose environment holds only the index
	FlagFromEnv = "--shard-from-env" // the environment must name the shard
)

// The job engines' environment variables.
const (
	// Kubernetes Indexed Jobs: the pod's index; the number of shards is
	// the Job's completions, which the pod does not see: --shards.
	EnvK8sIndex = "JOB_COMPLETION_INDEX"
	// Slurm job arrays (sbatch --array=MIN-MAX[:STEP]): the task's id,
	// the number of tasks, the first id and the step.
	EnvSlurmID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmMax   = "SLURM_ARRAY_TASK_MAX"
	EnvSlurmStep  = "SLURM_ARRAY_TASK_STEP"
	// Bazel test sharding (shard_count): the index and the total; a test
	// that honours them touches the status file, or Bazel warns that it
	// ran every item in every shard.
	EnvBazelIndex  = "TEST_SHARD_INDEX"
	EnvBazelTotal  = "TEST_TOTAL_SHARDS"
	EnvBazelStatus = "TEST_SHARD_STATUS_FILE"
)

// Options are what the command line says about the shard.
type Options struct {
	Shard   string // --shard i/N; "" when not given
	Shards  int    // --shards N; 0 when not given
	FromEnv bool   // --shard-from-env
}

// Error is a shard request that cannot be honoured: a malformed or
// out-of-range spec, missing or conflicting sources. It is the user's
// input, not the run, that is wrong.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func errorf(format string, args ...any) error { return &Error{fmt.Errorf(format, args...)} }

// Getenv looks an environment variable up; os.LookupEnv is one.
type Getenv func(name string) (string, bool)

// Resolve finds the shard of this process. An explicit --shard wins over
// the environment (so --shard 0/1 runs everything inside an array job);
// otherwise the environment of a Kubernetes Indexed Job, a Slurm array or
// a Bazel sharded test names it, and when several are set they must
// agree. --shards must agree with any count it meets, and --shard-from-env
// makes an environment without a shard an error instead of the whole
// run. It returns the spec and where it came from ("" for the whole run
// by default). When the Bazel variables are used, Resolve touches
// TEST_SHARD_STATUS_FILE, as Bazel asks of a test that honours sharding.
func Resolve(o Options, getenv Getenv) (Spec, string, error) {
	if o.Shards < 0 {
		return Spec{}, "", errorf("%s %d: need a positive number of shards", FlagShards, o.Shards)
	}
	if o.Shard != "" {
		if o.FromEnv {
			return Spec{}, "", errorf("%s %s and %s: give one of them", FlagShard, o.Shard, FlagFromEnv)
		}
		s, err := ParseSpec(o.Shard)
		if err != nil {
			return Spec{}, "", &Error{fmt.Errorf("%s: %w", FlagShard, err)}
		}
		if o.Shards != 0 && o.Shards != s.Count {
			return Spec{}, "", errorf("%s %s and %s %d disagree about the number of shards", FlagShard, o.Shard, FlagShards, o.Shards)
		}
		return s, FlagShard, nil
	}
	type found struct {
		spec   Spec
		source string
	}
	var fs []found
	for _, detect := range []func(Options, Getenv) (Spec, string, error){k8s, slurm, bazel} {
		s, src, err := detect(o, getenv)
		if err != nil {
			return Spec{}, "", err
		}
		if src != "" {
			fs = append(fs, found{s, src})
		}
	}
	if len(fs) == 0 {
		switch {
		case o.FromEnv:
			return Spec{}, "", errorf("%s: none of %s, %s or %s is set: not a Kubernetes Indexed Job, a Slurm array task or a Bazel sharded test",
				FlagFromEnv, EnvK8sIndex, EnvSlurmID, EnvBazelIndex)
		case o.Shards > 1:
			return Spec{}, "", errorf("%s %d without %s i/N or a job engine's index (%s, %s, %s): every process would run every item",
				FlagShards, o.Shards, FlagShard, EnvK8sIndex, EnvSlurmID, EnvBazelIndex)
		}
		return Whole, "", nil
	}
	for _, f := range fs[1:] {
		if f.spec != fs[0].spec {
			return Spec{}, "", errorf("the environment names two different shards: %s from %s, %s from %s",
				fs[0].spec, fs[0].source, f.spec, f.source)
		}
	}
	var srcs []string
	for _, f := range fs {
		srcs = append(srcs, f.source)
		if f.source == EnvBazelIndex {
			if err := touchBazelStatus(getenv); err != nil {
				return Spec{}, "", err
			}
		}
	}
	return fs[0].spec, strings.Join(srcs, ", "), nil
}

// lookup returns the variable's value, treating an empty one as unset.
func lookup(getenv Getenv, name string) (string, bool) {
	v, ok := getenv(name)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

// number reads the whole number in variable name.
func number(getenv Getenv, name string) (int, bool, error) {
	v, ok := lookup(getenv, name)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, true, errorf("%s=%q: not a whole number", name, v)
	}
	return n, true, nil
}

// checkCount makes --shards, when given, agree with the environment's count.
func checkCount(o Options, n int, names string) error {
	if o.Shards != 0 && o.Shards != n {
		return errorf("%s %d disagrees with %s, which make %d shards", FlagShards, o.Shards, names, n)
	}
	return nil
}

func k8s(o Options, getenv Getenv) (Spec, string, error) {
	i, ok, err := number(getenv, EnvK8sIndex)
	if !ok || err != nil {
		return Spec{}, "", err
	}
	if o.Shards == 0 {
		return Spec{}, "", errorf("%s=%d is set (a Kubernetes Indexed Job) but not the number of shards: give %s N, the Job's completions",
			EnvK8sIndex, i, FlagShards)
	}
	s := Spec{Index: i, Count: o.Shards}
	if err := s.Validate(); err != nil {
		return Spec{}, "", errorf("%s=%d with %s %d: need 0 ≤ index < %d (completions must equal %s)", EnvK8sIndex, i, FlagShards, o.Shards, o.Shards, FlagShards)
	}
	return s, EnvK8sIndex, nil
}

// slurm maps an array --array=MIN-MAX[:STEP] onto shards 0..COUNT-1:
// task id MIN+k·STEP is shard k. Ids need not start at 0 (--array=1-8
// is common), but they must be a plain range: a list such as
// --array=1,4,9 has no arithmetic from id to shard.
func slurm(o Options, getenv Getenv) (Spec, string, error) {
	id, ok, err := number(getenv, EnvSlurmID)
	if !ok || err != nil {
		return Spec{}, "", err
	}
	lo, ok, err := number(getenv, EnvSlurmMin)
	if err != nil {
		return Spec{}, "", err
	}
	if !ok {
		lo = 0
	}
	step, ok, err := number(getenv, EnvSlurmStep)
	if err != nil {
		return Spec{}, "", err
	}
	if !ok {
		step = 1
	}
	hi, haveHi, err := number(getenv, EnvSlurmMax)
	if err != nil {
		return Spec{}, "", err
	}
	n, ok, err := number(getenv, EnvSlurmCount)
	if err != nil {
		return Spec{}, "", err
	}
	if !ok && haveHi && step > 0 { // Slurm before 18.08 sets no count
		n, ok = (hi-lo)/step+1, true
	}
	if !ok {
		return Spec{}, "", errorf("%s=%d is set but neither %s nor %s (not a job array?)", EnvSlurmID, id, EnvSlurmCount, EnvSlurmMax)
	}
	if step < 1 || n < 1 {
		return Spec{}, "", errorf("%s=%d, %s=%d: need a positive count and step", EnvSlurmCount, n, EnvSlurmStep, step)
	}
	if haveHi && ((hi-lo)%step != 0 || (hi-lo)/step+1 != n) {
		return Spec{}, "", errorf("%s=%d, %s=%d, %s=%d, %s=%d: the array is not a plain range; use --array=0-%d (or any MIN-MAX[:STEP] range)",
			EnvSlurmMin, lo, EnvSlurmMax, hi, EnvSlurmStep, step, EnvSlurmCount, n, n-1)
	}
	off := id - lo
	if off < 0 || off%step != 0 || off/step >= n {
		return Spec{}, "", errorf("%s=%d is not in the array %d-%d:%d of %s=%d tasks",
			EnvSlurmID, id, lo, lo+(n-1)*step, step, EnvSlurmCount, n)
	}
	s := Spec{Index: off / step, Count: n}
	if err := checkCount(o, n, EnvSlurmCount); err != nil {
		return Spec{}, "", err
	}
	return s, EnvSlurmID, nil
}

func bazel(o Options, getenv Getenv) (Spec, string, error) {
	i, ok, err := number(getenv, EnvBazelIndex)
	if !ok || err != nil {
		return Spec{}, "", err
	}
	n, ok, err := number(getenv, EnvBazelTotal)
	if err != nil {
		return Spec{}, "", err
	}
	if !ok {
		return Spec{}, "", errorf("%s=%d is set but %s is not", EnvBazelIndex, i, EnvBazelTotal)
	}
	s := Spec{Index: i, Count: n}
	if err := s.Validate(); err != nil {
		return Spec{}, "", errorf("%s=%d, %s=%d: %w", EnvBazelIndex, i, EnvBazelTotal, n, err)
	}
	if err := checkCount(o, n, EnvBazelTotal); err != nil {
		return Spec{}, "", err
	}
	return s, EnvBazelIndex, nil
}

// touchBazelStatus creates (or updates the time of) the file Bazel names,
// which tells it the test runs only its shard's part.
func touchBazelStatus(getenv Getenv) error {
	path, ok := lookup(getenv, EnvBazelStatus)
	if !ok {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("touching %s=%s: %w", EnvBazelStatus, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("touching %s=%s: %w", EnvBazelStatus, path, err)
	}
	now := time.Now()
	if err := os.Chtimes(path, now, now); err != nil {
		return fmt.Errorf("touching %s=%s: %w", EnvBazelStatus, path, err)
	}
	return nil
}
