package ppa

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hwgen/hwgen/internal/toolchain"
)

// pnrReport is the part of nextpnr's --report JSON read here.
type pnrReport struct {
	Fmax map[string]struct {
		Achieved float64 `json:"achieved"`
	} `json:"fmax"`
	Utilization map[string]struct {
		Used      int `json:"used"`
		Available int `json:"available"`
	} `json:"utilization"`
	CriticalPaths []struct {
		From string `json:"from"`
		To   string `json:"to"`
		Path []struct {
			Type  string  `json:"type"`
			Net   string  `json:"net"`
			Delay float64 `json:"delay"`
			To    struct {
				Cell string `json:"cell"`
			} `json:"to"`
		} `json:"path"`
	} `json:"critical_paths"`
}

type seedRun struct {
	seed int
	fmax float64
	path *Path
	lcs  [2]int
}

// placeAndRoute runs nextpnr once per seed and keeps the median.
func placeAndRoute(dev Device, opt Options, nl *netlist, r *Result) error {
	var runs []seedRun
	for seed := 1; seed <= max(opt.Seeds, 1); seed++ {
		run, err := nextpnr(dev, opt, nl, seed)
		if err != nil {
			return err
		}
		runs = append(runs, run)
		r.SeedFmaxMHz = append(r.SeedFmaxMHz, run.fmax)
	}
	sorted := append([]seedRun(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].fmax < sorted[j].fmax })
	n := len(sorted)
	r.FmaxMHz = sorted[(n-1)/2].fmax
	if n%2 == 0 {
		r.FmaxMHz = (sorted[n/2-1].fmax + sorted[n/2].fmax) / 2
	}
	// The path of the lower median run: the more pessimistic of the two.
	med := sorted[(n-1)/2]
	r.Critical = med.path
	if r.Critical != nil {
		r.Critical.Description = fmt.Sprintf("seed %d, %.1f MHz", med.seed, med.fmax)
	}
	r.LCsUsed, r.LCsAvailable = med.lcs[0], med.lcs[1]
	return nil
}

func nextpnr(dev Device, opt Options, nl *netlist, seed int) (seedRun, error) {
	report := fmt.Sprintf("pnr%d.json", seed)
	logName := fmt.Sprintf("pnr%d.log", seed)
	args := []string{dev.Flag, "--package", dev.Package, "--json", "net.json", "--pcf-allow-unconstrained",
		"--freq", fmt.Sprint(opt.FreqMHz), "--timing-allow-fail", "--seed", fmt.Sprint(seed),
		"--report", report, "--log", logName, "-q"}
	out, err := toolchain.Run(opt.Dir, "nextpnr-ice40", args...)
	if err != nil {
		if nf := notFit(dev, opt.Dir, logName, out); nf != nil {
			return seedRun{}, nf
		}
		return seedRun{}, fmt.Errorf("nextpnr-ice40 seed %d (log %s): %w", seed, filepath.Join(opt.Dir, logName), lastLines(err, out))
	}
	b, err := os.ReadFile(filepath.Join(opt.Dir, report))
	if err != nil {
		return seedRun{}, fmt.Errorf("ppa: %w", err)
	}
	var rep pnrReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return seedRun{}, fmt.Errorf("ppa: %s: %w", report, err)
	}
	run := seedRun{seed: seed}
	for clk, f := range rep.Fmax {
		if strings.HasPrefix(clk, "clk") {
			run.fmax = f.Achieved
		}
	}
	lc := rep.Utilization["ICESTORM_LC"]
	run.lcs = [2]int{lc.Used, lc.Available}
	for _, cp := range rep.CriticalPaths {
		// The clock-to-clock path; the pins' paths (<async>) are the wrapper's.
		if strings.Contains(cp.From, "<async>") || strings.Contains(cp.To, "<async>") {
			continue
		}
		p := &Path{}
		var last string
		for _, e := range cp.Path {
			p.DelayNS += e.Delay
			switch e.Type {
			case "routing":
				if p.From == "" {
					if bit, ok := nl.netBit(e.Net); ok {
						p.From = nl.bitName(bit)
					}
					if p.From == "" {
						p.From = e.Net
					}
				}
			case "logic":
				p.Levels++
			case "setup":
				last = e.To.Cell
			}
		}
		if last != "" {
			p.To = nl.regName(last)
		}
		run.path = p
		break
	}
	return run, nil
}

// expandRE is the placer's complaint that a cell type overflows the
// device ("Failed to expand region (0, 0) |_> (33, 33) of 7895
// ICESTORM_LCs").
var expandRE = regexp.MustCompile(`Failed to expand region .* of (\d+) (ICESTORM_\w+?)s?$`)

// utilisationRE is a line of nextpnr's device utilisation table, printed
// after packing ("ICESTORM_LC: 11514/ 7680   149%").
var utilisationRE = regexp.MustCompile(`(ICESTORM_\w+|SB_\w+):\s*(\d+)/\s*(\d+)\s+\d+%`)

// notFit turns nextpnr's complaint about a full device into a NotFitError.
// The utilisation table says by how much whatever the error says, so an
// overflow there is preferred.
func notFit(dev Device, dir, logName, out string) error {
	b, _ := os.ReadFile(filepath.Join(dir, logName))
	text := string(b) + "\n" + out
	if !strings.Contains(text, "ERROR:") {
		return nil
	}
	for _, l := range strings.Split(text, "\n") {
		if m := utilisationRE.FindStringSubmatch(l); m != nil {
			used, _ := strconv.Atoi(m[2])
			has, _ := strconv.Atoi(m[3])
			if used > has {
				return &NotFitError{Device: dev.Name, Resource: m[1] + " (with the wrapper)", Needed: used, Available: has}
			}
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if m := expandRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			need, _ := strconv.Atoi(m[1])
			if has, ok := map[string]int{"ICESTORM_LC": dev.LCs, "ICESTORM_RAM": dev.BRAMs, "ICESTORM_DSP": dev.DSPs}[m[2]]; ok {
				return &NotFitError{Device: dev.Name, Resource: m[2] + " (with the wrapper)", Needed: need, Available: has}
			}
		}
		if strings.Contains(l, "ERROR:") && (strings.Contains(l, "BELs remaining") || strings.Contains(l, "too many") ||
			strings.Contains(l, "Unable to place") || strings.Contains(l, "does not fit")) {
			return &NotFitError{Device: dev.Name, Detail: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "ERROR:"))}
		}
	}
	return nil
}
