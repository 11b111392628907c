package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hwgen/hwgen/blocks/npu"

	"github.com/hwgen/hwgen/ppa"
	"github.com/hwgen/hwgen/shard"
)

// The report of hwgen explore: a table (or JSON) of its points, printed
// the same by the whole run and by 'hwgen merge' of its shards.

// exploreRecord is one point's figures. Wall times are left out: the
// merged report of a sharded run must equal the whole run's.
type exploreRecord struct {
	Point       map[string]json.RawMessage `json:"point"` // the swept fields' values
	NPU         string                     `json:"npu"`   // the configuration's name
	Config      npu.Config                 `json:"config"`
	Invalid     string                     `json:"invalid,omitempty"`
	Cycles      int                        `json:"cycles,omitempty"`
	Ideal       int64                      `json:"ideal,omitempty"`       // cycles of the MACs on a fully busy array
	Utilization float64                    `json:"utilization,omitempty"` // ideal / cycles
	MACs        uint64                     `json:"macs,omitempty"`
	Skipped     uint64                     `json:"skipped,omitempty"` // MACs skipped by zero skipping
	PPA         *ppa.Result                `json:"ppa,omitempty"`     // with NotFit: synthesis's counts, no Fmax
	NotFit      string                     `json:"not_fit,omitempty"` // the design does not fit the FPGA: why
}

// utilization is the MAC utilization as hwgen sim prints it, or "—"
// without PE-array work.
func (r exploreRecord) utilization() string {
	if r.Ideal == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*r.Utilization)
}

// ppaHeads are the area and timing columns of target.
func ppaHeads(target string) []string {
	if target == ppa.Generic {
		return []string{"cells", "flip-flops", "memory bits", "logic depth"}
	}
	return []string{"LUT4", "flip-flops", "BRAM", "DSP", "Fmax MHz"}
}

// ppaCells are the record's figures under ppaHeads.
func (r exploreRecord) ppaCells(target string) []string {
	n := len(ppaHeads(target))
	if r.PPA == nil {
		return strings.Split(strings.Repeat("—,", n-1)+"—", ",")
	}
	p := r.PPA
	if target == ppa.Generic {
		return []string{fmt.Sprint(p.Cells), fmt.Sprint(p.FFs), fmt.Sprint(p.MemoryBits), fmt.Sprint(p.LogicDepth)}
	}
	fmax := "—" // not placed: the design does not fit
	if p.FmaxMHz > 0 {
		fmax = fmt.Sprintf("%.1f", p.FmaxMHz)
	}
	return []string{fmt.Sprint(p.LUTs), fmt.Sprint(p.FFs), fmt.Sprint(p.BRAM), fmt.Sprint(p.DSP), fmax}
}

// note is what the row says besides its figures.
func (r exploreRecord) note() string {
	switch {
	case r.Invalid != "":
		return "invalid: " + r.Invalid
	case r.NotFit != "":
		return r.NotFit
	}
	return ""
}

// print writes the records as the table (with its header and a summary)
// or, with --json, as a JSON array.
func (a exploreArgs) print(w io.Writer, recs []exploreRecord) error {
	if a.JSON {
		if recs == nil {
			recs = []exploreRecord{}
		}
		b, err := json.MarshalIndent(recs, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	if a.Model != nil {
		fmt.Fprintf(w, "workload  %s\n", a.Model.describe())
	} else {
		fmt.Fprintf(w, "workload  %s\n", describe(a.Workload))
	}
	if a.NoPPA {
		fmt.Fprintln(w, "ppa       not measured (--no-ppa)")
	} else {
		fmt.Fprintf(w, "ppa       %s\n", a.Target)
	}
	var fixed []string
	for _, f := range a.Sweep {
		if len(f.Values) == 1 {
			fixed = append(fixed, f.Name+"="+f.Values[0])
		}
	}
	if len(fixed) > 0 && len(a.Sweep.shown()) < len(a.Sweep) {
		fmt.Fprintf(w, "set       %s\n", strings.Join(fixed, " "))
	}
	fmt.Fprintln(w)

	shown := a.Sweep.shown()
	var heads []string
	for _, i := range shown {
		heads = append(heads, a.Sweep[i].Name)
	}
	heads = append(heads, "cycles", "MAC util")
	if !a.NoPPA {
		heads = append(heads, ppaHeads(a.Target)...)
	}
	var rows [][]string
	notes, invalid, ran := false, 0, 0
	for _, r := range recs {
		var row []string
		for _, i := range shown {
			row = append(row, string(r.Point[a.Sweep[i].Name]))
		}
		if r.Invalid != "" {
			row = append(row, "—", "—")
			invalid++
		} else {
			row = append(row, fmt.Sprint(r.Cycles), r.utilization())
			ran++
		}
		if !a.NoPPA {
			row = append(row, r.ppaCells(a.Target)...)
		}
		row = append(row, r.note())
		notes = notes || r.note() != ""
		rows = append(rows, row)
	}
	if notes {
		heads = append(heads, "note")
	} else {
		for i := range rows {
			rows[i] = rows[i][:len(rows[i])-1]
		}
	}
	writeTable(w, heads, rows)
	noun := "points"
	if len(recs) == 1 {
		noun = "point"
	}
	judge := "the golden model"
	if a.Model != nil {
		judge = "the reference machine"
	}
	fmt.Fprintf(w, "\n%d %s: %d ran and equal %s, %d invalid\n", len(recs), noun, ran, judge, invalid)
	return nil
}

// writeTable writes a Markdown table with aligned columns: text (the
// last column when it is the note) left, figures right.
func writeTable(w io.Writer, heads []string, rows [][]string) {
	width := make([]int, len(heads))
	for i, h := range heads {
		width[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	left := func(i int) bool { return heads[i] == "note" }
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if left(i) {
				fmt.Fprintf(&b, "| %s%s ", c, pad)
			} else {
				fmt.Fprintf(&b, "| %s%s ", pad, c)
			}
		}
		fmt.Fprintln(w, b.String()+"|")
	}
	line(heads)
	var rule strings.Builder
	for i := range heads {
		dashes := strings.Repeat("-", width[i]+1)
		if left(i) {
			fmt.Fprintf(&rule, "|:%s", dashes)
		} else {
			fmt.Fprintf(&rule, "|%s:", dashes)
		}
	}
	fmt.Fprintln(w, rule.String()+"|")
	for _, r := range rows {
		line(r)
	}
}

// mergeExplore prints the report of a sharded sweep.
func mergeExplore(m *shard.Merged, w io.Writer) error {
	if gap := m.FirstMissing(); gap >= 0 {
		return fmt.Errorf("merge: shard %s has no result for point %d: it stopped early (%s)", m.ShardOf(gap), gap+1, m.Stopped(m.ShardOf(gap), "a failed point"))
	}
	var a exploreArgs
	if err := m.DecodeArgs(&a); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	var recs []exploreRecord
	for _, r := range m.Records {
		var rec exploreRecord
		if err := r.Decode(&rec); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		recs = append(recs, rec)
	}
	return a.print(w, recs)
}
