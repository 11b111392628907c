package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/shard"
	"github.com/hwgen/hwgen/verify"
)

// A merged campaign stops where the unsharded one would: at the first
// failing design in seed order, whatever later shards ran; a shard that
// stopped without a failure is an incomplete result, not a report.
func TestMergeFuzzStopsAtFirstFailure(t *testing.T) {
	args := fuzzArgs{Seed: 100, Count: 4, Cycles: 10}
	pass := func(i int) fuzzRecord {
		seed := args.Seed + uint64(i)
		d, err := hdl.Elaborate(verify.RandomDesign(seed, verify.FuzzOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		cov := verify.NewCoverage()
		cov.AddDesign(d)
		cov.Designs, cov.Cycles = 1, args.Cycles
		return fuzzRecord{Seed: seed, Design: verify.FuzzTopName(seed), Nodes: cov.Nodes, Cycles: args.Cycles, Outputs: 3, Coverage: cov}
	}
	fail := func(i int) fuzzRecord {
		seed := args.Seed + uint64(i)
		return fuzzRecord{Seed: seed, Design: verify.FuzzTopName(seed), Error: "mismatch in design " + verify.FuzzTopName(seed)}
	}
	for _, tc := range []struct {
		name    string
		shards  [][]fuzzRecord // the records of shards 0/2 (items 0, 1) and 1/2 (items 2, 3)
		lines   []string       // the PASS and FAIL lines, in order
		designs int            // in the coverage
		wantErr string
	}{
		{name: "all pass", shards: [][]fuzzRecord{{pass(0), pass(1)}, {pass(2), pass(3)}},
			lines: []string{"PASS 1/4 fuzz100", "PASS 2/4 fuzz101", "PASS 3/4 fuzz102", "PASS 4/4 fuzz103"}, designs: 4},
		{name: "failure in the second shard", shards: [][]fuzzRecord{{pass(0), pass(1)}, {fail(2)}},
			lines: []string{"PASS 1/4 fuzz100", "PASS 2/4 fuzz101", "FAIL mismatch in design fuzz102"}, designs: 2,
			wantErr: "design 3 of 4 disagrees or does not build (2 agreed before it)"},
		{name: "failure in the first shard, later shards ran on", shards: [][]fuzzRecord{{fail(0)}, {pass(2), fail(3)}},
			lines: []string{"FAIL mismatch in design fuzz100"}, designs: 0,
			wantErr: "design 1 of 4 disagrees or does not build (0 agreed before it)"},
		{name: "stopped without a failure", shards: [][]fuzzRecord{{pass(0)}, {pass(2), pass(3)}},
			wantErr: "shard 0/2 stopped before design 1 (seed 101) without a failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var files []*shard.File
			for i, recs := range tc.shards {
				f, err := shard.New(fuzzCommand, args, shard.Spec{Index: i, Count: 2}, args.Count)
				if err != nil {
					t.Fatal(err)
				}
				for k, r := range recs {
					if err := f.Add(f.Items.First+k, r); err != nil {
						t.Fatal(err)
					}
				}
				// Through the bytes, as hwgen merge reads them.
				b, err := f.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if f, err = shard.Decode(b); err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
			m, err := shard.Merge(files, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = mergeFuzz(m, &out)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("mergeFuzz error %v, want %q", err, tc.wantErr)
			}
			var lines []string // each PASS or FAIL line, cut to the length of the wanted one
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "PASS ") || strings.HasPrefix(l, "FAIL ") {
					if k := len(lines); k < len(tc.lines) {
						l = l[:min(len(l), len(tc.lines[k]))]
					}
					lines = append(lines, l)
				}
			}
			if diff := cmp.Diff(tc.lines, lines); diff != "" {
				t.Errorf("report lines (-want +got):\n%s\n%s", diff, out.String())
			}
			if tc.designs > 0 && !strings.Contains(out.String(), "coverage: "+strconv.Itoa(tc.designs)+" designs") {
				t.Errorf("report does not tally %d designs:\n%s", tc.designs, out.String())
			}
			if tc.designs == 0 && strings.Contains(out.String(), "coverage:") {
				t.Errorf("report has a coverage table with no design passed:\n%s", out.String())
			}
		})
	}
}
