package conformance

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// RunAll loads and runs every test in dirs, in order.
func RunAll(dirs []string, run func(c *Case) Result) []Result {
	var rs []Result
	for _, d := range dirs {
		c, err := Load(d)
		if err != nil {
			rs = append(rs, Result{Name: filepath.Base(d), Op: OpOfName(filepath.Base(d)), Status: Unsupported, Detail: "cannot load: " + err.Error()})
			continue
		}
		rs = append(rs, run(c))
	}
	return rs
}

// Counts is the number of results of each status.
func Counts(rs []Result) map[Status]int {
	n := map[Status]int{}
	for _, r := range rs {
		n[r.Status]++
	}
	return n
}

// WriteTable writes rs as a Markdown table, with a summary line.
func WriteTable(w io.Writer, rs []Result) error {
	n := Counts(rs)
	if _, err := fmt.Fprintf(w, "%d tests: %d pass on the NPU, %d pass as host conversions, %d fail, %d unsupported.\n\n| test | op | result | detail |\n|---|---|---|---|\n",
		len(rs), n[Pass], n[Host], n[Fail], n[Unsupported]); err != nil {
		return err
	}
	for _, r := range rs {
		d := strings.ReplaceAll(r.Detail, "|", "\\|")
		if _, err := fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Name, r.Op, r.Status, d); err != nil {
			return err
		}
	}
	return nil
}
