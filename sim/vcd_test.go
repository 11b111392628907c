package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
)

// vcdChange is one value change of one signal.
type vcdChange struct {
	Time  uint64
	Value uint64
}

// parseVCD is a tiny VCD reader: it maps every hierarchical name
// (scope.scope.name) to its changes, in order, including $dumpvars.
func parseVCD(t *testing.T, text string) map[string][]vcdChange {
	t.Helper()
	names := map[string][]string{} // id -> full names
	out := map[string][]vcdChange{}
	var scopes []string
	var now uint64
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	add := func(id string, v uint64) {
		if len(names[id]) == 0 {
			t.Fatalf("value change for undeclared id %q", id)
		}
		for _, n := range names[id] {
			out[n] = append(out[n], vcdChange{now, v})
		}
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "$scope":
			scopes = append(scopes, f[2])
		case f[0] == "$upscope":
			scopes = scopes[:len(scopes)-1]
		case f[0] == "$var":
			// $var kind width id name [range] $end
			names[f[3]] = append(names[f[3]], strings.Join(append(append([]string(nil), scopes...), f[4]), "."))
		case f[0][0] == '#':
			n, err := strconv.ParseUint(f[0][1:], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if n < now {
				t.Fatalf("time goes back from %d to %d", now, n)
			}
			now = n
		case f[0][0] == 'b':
			v, err := strconv.ParseUint(f[0][1:], 2, 64)
			if err != nil {
				t.Fatal(err)
			}
			add(f[1], v)
		case f[0][0] == '0' || f[0][0] == '1':
			add(f[0][1:], uint64(f[0][0]-'0'))
		}
	}
	return out
}

func counterWithChild() *hdl.Module {
	child := hdl.NewModule("inc")
	x := child.Input("x", hdl.UInt(4))
	child.Output("y", hdl.UInt(4)).Set(x.Add(hdl.U(1, 1)).Trunc(4))

	m := hdl.NewModule("counter")
	en := m.Input("en", hdl.Bool)
	cnt := m.Reg("cnt", hdl.UInt(4), 0)
	u := m.Instance("u_inc", child)
	u.Connect("x", cnt)
	cnt.SetNext(u.Out("y"))
	cnt.SetEnable(en)
	m.Output("q", hdl.UInt(4)).Set(cnt)
	return m
}

func TestVCD(t *testing.T) {
	s := mustSim(t, counterWithChild())
	var buf bytes.Buffer
	if err := s.DumpVCD(&buf); err != nil {
		t.Fatal(err)
	}
	poke(t, s, map[string]int64{"rst": 1})
	s.Step(1) // edge 1 at t=10
	poke(t, s, map[string]int64{"rst": 0, "en": 1})
	s.Step(3) // edges at 20, 30, 40
	poke(t, s, map[string]int64{"en": 0})
	s.Step(1) // edge at 50: holds
	if err := s.CloseVCD(); err != nil {
		t.Fatal(err)
	}
	got := parseVCD(t, buf.String())
	want := map[string][]vcdChange{
		"counter.clk": {{0, 0}, {10, 1}, {15, 0}, {20, 1}, {25, 0}, {30, 1}, {35, 0}, {40, 1}, {45, 0}, {50, 1}, {55, 0}},
		"counter.rst": {{0, 0}, {5, 1}, {15, 0}},
		"counter.en":  {{0, 0}, {15, 1}, {45, 0}},
		// Register outputs change at the rising edges.
		"counter.cnt":     {{0, 0}, {20, 1}, {30, 2}, {40, 3}},
		"counter.q":       {{0, 0}, {20, 1}, {30, 2}, {40, 3}},
		"counter.u_inc_y": {{0, 1}, {20, 2}, {30, 3}, {40, 4}},
		"counter.u_inc.x": {{0, 0}, {20, 1}, {30, 2}, {40, 3}},
		"counter.u_inc.y": {{0, 1}, {20, 2}, {30, 3}, {40, 4}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("VCD changes (-want +got):\n%s\n%s", diff, buf.String())
	}
	for _, line := range []string{"$timescale 1ns $end", "$scope module u_inc $end", "$var reg 4 "} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("VCD lacks %q", line)
		}
	}
}

// TestVCDWide checks the binary form of values wider than a word and a
// trace started in the middle of a run.
func TestVCDWide(t *testing.T) {
	m := hdl.NewModule("widecount")
	r := m.Reg("r", hdl.UInt(70), 0)
	r.SetNext(r.Add(hdl.U(70, 1<<62)).Trunc(70))
	s := mustSim(t, m)
	s.Step(3)
	var buf bytes.Buffer
	if err := s.DumpVCD(&buf); err != nil {
		t.Fatal(err)
	}
	s.Step(2)
	if err := s.CloseVCD(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	id := ""
	for _, l := range strings.Split(buf.String(), "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[0] == "$var" && f[4] == "r" {
			id = f[3]
		}
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "b") {
			lines = append(lines, l)
		}
	}
	val := func(k uint64) string { return fmt.Sprintf("b%b%s %s", k, strings.Repeat("0", 62), id) }
	want := []string{"#30", val(3), "#35", "#40", val(4), "#45", "#50", val(5), "#55"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A filtered trace holds the selected part of the hierarchy only (and
// clk, rst); an unknown scope is an error naming the instances.
func TestVCDFilter(t *testing.T) {
	cases := []struct {
		name   string
		filter VCDFilter
		want   []string
		err    string
	}{
		{"instance", VCDFilter{Scope: "u_inc", Depth: -1}, []string{"counter.clk", "counter.rst", "counter.u_inc.x", "counter.u_inc.y"}, ""},
		{"top name leads", VCDFilter{Scope: "counter.u_inc", Depth: -1}, []string{"counter.clk", "counter.rst", "counter.u_inc.x", "counter.u_inc.y"}, ""},
		{"top only", VCDFilter{Depth: 0}, []string{"counter.clk", "counter.cnt", "counter.en", "counter.q", "counter.rst", "counter.u_inc_y"}, ""},
		{"unknown", VCDFilter{Scope: "nope"}, nil, `"nope" is not an instance of counter: want a dotted path of instances, e.g. one of u_inc`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSim(t, counterWithChild())
			var buf bytes.Buffer
			err := s.DumpVCD(&buf, tc.filter)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n, _ := s.VCDTraced()
			s.Step(2)
			if err := s.CloseVCD(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for name := range parseVCD(t, buf.String()) {
				got = append(got, name)
			}
			sort.Strings(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("traced signals (-want +got):\n%s", diff)
			}
			if n > len(got) || n == 0 {
				t.Errorf("VCDTraced %d identifier codes for %d names", n, len(got))
			}
		})
	}
}
