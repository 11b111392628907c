package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Merged is a whole run put together from the files of all its shards.
type Merged struct {
	Command string
	Args    json.RawMessage // compact
	Total   int             // items of the run
	Shards  int
	// Records are the records of all shards in item order. A shard that
	// stopped early (at a failure) leaves the rest of its range without
	// records: see FirstMissing.
	Records []Record
	stopped map[int]string // by shard index: File.Stopped
}

// Stopped says why shard s stopped early: its file's Stopped, or
// otherwise ("" in files of an earlier format).
func (m *Merged) Stopped(s Spec, otherwise string) string {
	if why := m.stopped[s.Index]; why != "" {
		return why
	}
	return otherwise
}

// DecodeArgs unmarshals the run's arguments into v.
func (m *Merged) DecodeArgs(v any) error {
	if err := json.Unmarshal(m.Args, v); err != nil {
		return fmt.Errorf("%s: arguments: %w", m.Command, err)
	}
	return nil
}

// FirstMissing is the first item without a record, or -1 when every
// item has one.
func (m *Merged) FirstMissing() int {
	for k, r := range m.Records {
		if r.Item != k {
			return k
		}
	}
	if len(m.Records) < m.Total {
		return len(m.Records)
	}
	return -1
}

// ShardOf is the shard that runs item.
func (m *Merged) ShardOf(item int) Spec {
	for i := 0; i < m.Shards; i++ {
		s := Spec{Index: i, Count: m.Shards}
		if r := s.Items(m.Total); item >= r.First && item < r.End {
			return s
		}
	}
	return Spec{Index: -1, Count: m.Shards}
}

// MergeFiles reads the result files at paths and merges them (see Merge).
func MergeFiles(paths ...string) (*Merged, error) {
	if len(paths) == 0 {
		return nil, errors.New("no shard result files to merge")
	}
	var files []*File
	var broken error
	for _, p := range paths {
		if err := checkPartial(p); err != nil {
			return nil, err
		}
		f, err := Read(p)
		if err != nil {
			if broken == nil {
				broken = err
			}
			continue
		}
		files = append(files, f)
	}
	if broken != nil {
		// Say which shards the intact files leave missing, so the one
		// to re-run is plain even when the broken file's own header
		// cannot be read.
		if miss := missing(files); miss != "" {
			return nil, fmt.Errorf("broken shard result file %w (the intact files leave %s missing)", broken, miss)
		}
		return nil, fmt.Errorf("broken shard result file %w", broken)
	}
	return merge(files, paths)
}

// Merge checks that files are the shards of one run — the same command,
// arguments, item count and shard count, every shard exactly once — and
// returns the records in item order. Each file is assumed intact (Decode
// and Read check that). names name the files in errors (paths, say).
func Merge(files []*File, names []string) (*Merged, error) {
	return merge(files, names)
}

func merge(files []*File, names []string) (*Merged, error) {
	if len(files) == 0 {
		return nil, errors.New("no shard result files to merge")
	}
	name := func(k int) string {
		if k < len(names) {
			return names[k]
		}
		return fmt.Sprintf("file %d", k+1)
	}
	ref := files[0]
	refArgs, err := compact(ref.Args)
	if err != nil {
		return nil, fmt.Errorf("%s: arguments: %w", name(0), err)
	}
	bySlot := map[int]int{} // shard index → file
	for k, f := range files {
		args, err := compact(f.Args)
		if err != nil {
			return nil, fmt.Errorf("%s: arguments: %w", name(k), err)
		}
		var diff string
		switch {
		case f.Command != ref.Command:
			diff = fmt.Sprintf("command %q, not %q", f.Command, ref.Command)
		case !bytes.Equal(args, refArgs):
			diff = fmt.Sprintf("arguments %s, not %s", args, refArgs)
		case f.Items.Total != ref.Items.Total:
			diff = fmt.Sprintf("%d items, not %d", f.Items.Total, ref.Items.Total)
		case f.Shard.Count != ref.Shard.Count:
			diff = fmt.Sprintf("%d shards, not %d", f.Shard.Count, ref.Shard.Count)
		}
		if diff != "" {
			return nil, fmt.Errorf("%s (shard %s) is from another run than %s (shard %s): %s", name(k), f.Shard, name(0), ref.Shard, diff)
		}
		if j, dup := bySlot[f.Shard.Index]; dup {
			return nil, fmt.Errorf("shard %s is given twice: %s and %s", f.Shard, name(j), name(k))
		}
		bySlot[f.Shard.Index] = k
	}
	if miss := missing(files); miss != "" {
		verb := "is"
		if strings.HasPrefix(miss, "shards") {
			verb = "are"
		}
		return nil, fmt.Errorf("%s %s missing: %d of %d shard result files given (%s)", miss, verb, len(files), ref.Shard.Count, given(files, name))
	}
	m := &Merged{Command: ref.Command, Args: refArgs, Total: ref.Items.Total, Shards: ref.Shard.Count, stopped: map[int]string{}}
	for i := 0; i < ref.Shard.Count; i++ {
		m.Records = append(m.Records, files[bySlot[i]].Records...)
		m.stopped[i] = files[bySlot[i]].Stopped
	}
	return m, nil
}

// missing names the shards that files (of one run, by the first's count)
// do not hold, or "".
func missing(files []*File) string {
	if len(files) == 0 {
		return ""
	}
	n := files[0].Shard.Count
	have := map[int]bool{}
	for _, f := range files {
		have[f.Shard.Index] = true
	}
	var miss []string
	for i := 0; i < n; i++ {
		if !have[i] {
			miss = append(miss, Spec{Index: i, Count: n}.String())
		}
	}
	switch len(miss) {
	case 0:
		return ""
	case 1:
		return "shard " + miss[0]
	}
	return "shards " + strings.Join(miss, ", ")
}

// given lists the files by shard, for an error message.
func given(files []*File, name func(int) string) string {
	ks := make([]int, len(files))
	for k := range ks {
		ks[k] = k
	}
	sort.Slice(ks, func(a, b int) bool { return files[ks[a]].Shard.Index < files[ks[b]].Shard.Index })
	var s []string
	for _, k := range ks {
		s = append(s, fmt.Sprintf("%s %s", files[k].Shard, name(k)))
	}
	return strings.Join(s, ", ")
}

func compact(raw json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// checkPartial refuses a result whose shard's last run was interrupted:
// its partial file lies beside it, newer than the result or without one.
func checkPartial(path string) error {
	pst, err := os.Stat(path + PartialSuffix)
	if err != nil {
		return nil
	}
	st, err := os.Stat(path)
	if err == nil && !pst.ModTime().After(st.ModTime()) {
		return nil // an old partial file, superseded by a whole run
	}
	what := fmt.Sprintf("%s was interrupted", path)
	if f, err := Read(path + PartialSuffix); err == nil {
		what = fmt.Sprintf("shard %s (%s) was interrupted after %d of its %d items", f.Shard, path, len(f.Records), f.Items.Len())
	}
	if err == nil {
		return fmt.Errorf("%s; %s is from an earlier run: run the shard again", what, path)
	}
	return fmt.Errorf("%s: no result, only the partial %s: run the shard again", what, path+PartialSuffix)
}
