// Package shard spreads a long run (thousands of images through the
// simulator, a fuzz campaign) over the job engines users already have —
// Kubernetes Indexed Jobs, Slurm job arrays, Bazel test sharding — without
// a scheduler of hwgen's own, and merges the pieces back into the report an
// unsharded run prints.
//
// A run of Total items is cut into N shards; shard i (0 ≤ i < N) runs the
// items Split(Total, N)[i], a contiguous range, writes a File of one Record
// per item it ran, and Merge checks that a set of files is the whole run
// (same command and arguments, every shard exactly once, every file intact)
// and returns the records in item order. Turning the records into a report
// is the command's job: the record payload is the command's own JSON.
//
// Which shard a process is comes from a flag (--shard i/N) or from the job
// engine's environment (Resolve).
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is shard Index of Count (0 ≤ Index < Count). The zero Spec is
// not valid; Whole is the unsharded run.
type Spec struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Whole is the unsharded run: the one shard of one.
var Whole = Spec{Index: 0, Count: 1}

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Sharded reports whether s is a part of a run rather than the whole.
func (s Spec) Sharded() bool { return s.Count > 1 }

// Validate checks 0 ≤ Index < Count.
func (s Spec) Validate() error {
	if s.Count < 1 {
		return fmt.Errorf("%d shards: need at least 1", s.Count)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard index %d is out of range: 0 ≤ index < %d", s.Index, s.Count)
	}
	return nil
}

// ParseSpec reads "i/N" (0 ≤ i < N, N ≥ 1).
func ParseSpec(text string) (Spec, error) {
	is, ns, ok := strings.Cut(text, "/")
	if !ok {
		return Spec{}, fmt.Errorf("%q is not a shard: write i/N, shard i of N, with 0 ≤ i < N", text)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("%q is not a shard: write i/N with whole numbers, 0 ≤ i < N", text)
	}
	s := Spec{Index: i, Count: n}
	if err := s.Validate(); err != nil {
		return Spec{}, fmt.Errorf("%q: %w", text, err)
	}
	return s, nil
}

// Range is the items [First, End) of a run of Total items.
type Range struct {
	Total int `json:"total"`
	First int `json:"first"`
	End   int `json:"end"`
}

// Len is the number of items in r.
func (r Range) Len() int { return r.End - r.First }

func (r Range) String() string {
	if r.Len() == 0 {
		return fmt.Sprintf("no items of %d", r.Total)
	}
	return fmt.Sprintf("items %d..%d of %d", r.First, r.End-1, r.Total)
}

// Items is the range of the total items that shard s runs: the items are
// cut into s.Count contiguous ranges, in order, whose lengths differ by at
// most one (the first total mod Count ranges are the longer ones).
// Contiguous ranges keep a shard's header short (first and end) and its
// seeds or images neighbours, and the union over the shards is every item
// exactly once. With more shards than items, the last shards are empty.
func (s Spec) Items(total int) Range {
	return Range{Total: total, First: bound(total, s.Index, s.Count), End: bound(total, s.Index+1, s.Count)}
}

// bound is where shard i starts: i·(total/n) plus one per longer shard
// before it.
func bound(total, i, n int) int {
	q, r := total/n, total%n
	return i*q + min(i, r)
}
