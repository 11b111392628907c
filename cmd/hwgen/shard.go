package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hwgen/hwgen/shard"
)

// shardFlags are the flags of a command whose items (designs, tests,
// images) can be spread over processes: a job engine starts one process
// per shard, each writes --result, and 'hwgen merge' prints the report of
// the whole run.
type shardFlags struct {
	Shard        string `help:"Run only shard i of N (i/N, 0 ≤ i < N): the i-th of N contiguous parts of the items. Wins over the environment (--shard 0/1 runs everything)." placeholder:"i/N"`
	Shards       int    `help:"The number of shards, for a Kubernetes Indexed Job, whose pods see only their index (JOB_COMPLETION_INDEX); elsewhere it must agree with the engine's count." placeholder:"N"`
	ShardFromEnv bool   `help:"Take the shard from the job engine's environment and fail if it names none: JOB_COMPLETION_INDEX (with --shards), SLURM_ARRAY_TASK_ID/_COUNT/_MIN, TEST_SHARD_INDEX/TEST_TOTAL_SHARDS. Without this flag a set environment is still used."`
	Result       string `help:"Write this run's (or shard's) result as JSON to FILE, atomically, for 'hwgen merge'." type:"path" placeholder:"FILE"`
}

// shardRun is one run of a command over some of its items: the whole run
// or one shard. It collects the records and writes them to --result.
type shardRun struct {
	spec   shard.Spec
	source string      // where spec came from ("" for the default whole run)
	items  shard.Range // the items this process runs
	file   *shard.File
	path   string // --result, or ""
}

// check resolves the shard and checks --result before anything runs: a
// bad shard or an unwritable result file is refused at once, not after
// a calibration of minutes.
func (f shardFlags) check() error {
	_, _, err := shard.Resolve(shard.Options{Shard: f.Shard, Shards: f.Shards, FromEnv: f.ShardFromEnv}, os.LookupEnv)
	var se *shard.Error
	if errors.As(err, &se) {
		return usageError{err}
	} else if err != nil {
		return err
	}
	if f.Result != "" {
		return checkOutFile("--result", f.Result)
	}
	return nil
}

// start resolves the shard (a bad request is a usage error) and starts
// the run of command, with its deciding args, over total items.
func (f shardFlags) start(command string, args any, total int) (*shardRun, error) {
	spec, source, err := shard.Resolve(shard.Options{Shard: f.Shard, Shards: f.Shards, FromEnv: f.ShardFromEnv}, os.LookupEnv)
	var se *shard.Error
	if errors.As(err, &se) {
		return nil, usageError{err}
	} else if err != nil {
		return nil, err
	}
	if f.Result != "" {
		if st, err := os.Stat(filepath.Dir(f.Result)); err != nil || !st.IsDir() {
			return nil, usagef("--result %s: the directory %s does not exist", f.Result, filepath.Dir(f.Result))
		}
	}
	file, err := shard.New(command, args, spec, total)
	if err != nil {
		return nil, err
	}
	return &shardRun{spec: spec, source: source, items: file.Items, file: file, path: f.Result}, nil
}

// add records the result of item (the next of the shard's items).
func (r *shardRun) add(item int, rec any) error { return r.file.Add(item, rec) }

// banner says, for a shard, that what follows is only a part of the run.
func (r *shardRun) banner(w io.Writer, noun string) {
	if !r.spec.Sharded() {
		return
	}
	part := fmt.Sprintf("%s %d..%d of %d", noun, r.items.First+1, r.items.End, r.items.Total) // counted from 1, as the reports count
	if r.items.Len() == 0 {
		part = fmt.Sprintf("none of the %d %s", r.items.Total, noun)
	}
	fmt.Fprintf(w, "shard %s (from %s): %s; a part of the run: 'hwgen merge' the shards' --result files for the whole report\n",
		r.spec, r.source, part)
}

// finish writes the result file, if asked for; runErr is the run's own
// outcome, which a failed write does not hide.
//
// An interrupted run (Ctrl-C, SIGTERM) writes its records to the path
// with shard.PartialSuffix instead, leaving an earlier result as it was;
// hwgen merge finds the partial file and says the shard was interrupted.
func (r *shardRun) finish(runErr error) error {
	if r.path == "" {
		return runErr
	}
	path := r.path
	switch {
	case errors.Is(runErr, context.Canceled):
		r.file.Stopped, path = "interrupted", r.path+shard.PartialSuffix
	case runErr != nil:
		r.file.Stopped = "failed: " + oneLine(runErr)
	}
	if err := r.file.Write(path); err != nil {
		return errors.Join(runErr, fmt.Errorf("--result %s: %w", r.path, cause(err)))
	}
	if path != r.path {
		return fmt.Errorf("%w; the records so far are in %s, %s is left as it was", runErr, path, r.path)
	}
	return runErr
}

// mergers turn the merged records of a sharded command into the report its
// unsharded run prints on standard output, and return the error it would
// return (a failed run: exit status 1).
var mergers = map[string]func(m *shard.Merged, w io.Writer) error{
	fuzzCommand:        mergeFuzz,
	conformanceCommand: mergeConformance,
	runCommand:         mergeRun,
	exploreCommand:     mergeExplore,
}

type mergeCmd struct {
	Files []string `arg:"" help:"The --result files of all shards of one run, in any order." type:"path" placeholder:"FILE"`
}

func (c *mergeCmd) Help() string {
	var cmds []string
	for k := range mergers {
		cmds = append(cmds, "'hwgen "+k+"'")
	}
	sort.Strings(cmds)
	return `Prints the report of a run that was spread over processes with --shard
(or a job engine's environment) and --result: exactly what the unsharded run
prints on standard output, with the same exit status. Every shard must be
given exactly once and be intact (each file carries a checksum), and all must
come from the same command with the same arguments; otherwise one line names
the shard that is missing, duplicated, broken or foreign, and the exit status
is 1. Commands that write results: ` + strings.Join(cmds, ", ") + `.`
}

func (c *mergeCmd) Run() error {
	m, err := shard.MergeFiles(c.Files...)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	merge, ok := mergers[m.Command]
	if !ok {
		return fmt.Errorf("merge: the files are results of %q, which hwgen merge does not know", m.Command)
	}
	return merge(m, os.Stdout)
}
