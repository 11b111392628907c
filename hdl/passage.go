package hdl

import (
	"sort"
	"strings"
)

// A Passage is a combinational path inside one module that passes
// through sibling instances: it enters an instance at an input and
// leaves it at an output without meeting a register (the instance's
// ModuleInfo.CombDeps). Such a path spans more than two modules (where
// it starts, each instance it passes, where it ends), which is where
// long valid/ready paths come from: a request that reaches a ready
// through an arbiter in another block.
type Passage struct {
	Module  string   // the module whose instances the path passes
	From    string   // where it starts: an input of Module, or "inst.port" (an instance's output)
	Through []string // the instances passed, in order, as "inst[in->out]"
	To      string   // where it ends: "inst.port" (an instance's input), an output of Module, or one of its registers
}

func (p Passage) String() string {
	return p.Module + ": " + p.From + " -> " + strings.Join(p.Through, " -> ") + " -> " + p.To
}

// Passages lists, for every module of d and every place a combinational
// path ends at (an instance input, an output, a register), the path
// there that passes the most sibling instances, when it passes at least
// min of them; longest first, then by module and end.
func Passages(d *Design, min int) []Passage {
	var all []Passage
	for _, m := range d.Modules {
		all = append(all, modulePassages(d, m, min)...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if len(a.Through) != len(b.Through) {
			return len(a.Through) > len(b.Through)
		}
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		return a.To < b.To
	})
	return all
}

// route is the passage found so far to an expression: where it starts
// and the instances on the way.
type route struct {
	from    string
	through []string
}

func modulePassages(d *Design, m *Module, min int) []Passage {
	longest := map[*Expr]route{}
	done := map[*Expr]bool{}
	// Elaboration has ruled out combinational loops, so the walk ends.
	var walk func(x *Expr) route
	walk = func(x *Expr) route {
		if done[x] {
			return longest[x]
		}
		var best route
		take := func(r route) {
			if best.from == "" || len(r.through) > len(best.through) {
				best = r
			}
		}
		if x.Op != OpSignal {
			for _, a := range x.Args {
				if r := walk(a); r.from != "" {
					take(r)
				}
			}
		} else {
			switch s := x.Sig; s.Kind {
			case Input:
				take(route{from: s.Name})
			case Output, Wire:
				if s.Driver != nil {
					if r := walk(s.Driver); r.from != "" {
						take(r)
					}
				}
			case InstOut:
				take(route{from: s.Inst.Name + "." + s.Port})
				if ci := d.Info[s.Inst.Module]; ci != nil {
					for _, idx := range ci.CombDeps[s.Port] {
						in := ci.Inputs[idx].Name
						drv := s.Inst.Inputs[in]
						if drv == nil {
							continue
						}
						if r := walk(drv); r.from != "" {
							take(route{from: r.from, through: append(append([]string(nil), r.through...), s.Inst.Name+"["+in+"->"+s.Port+"]")})
						}
					}
				}
			}
		}
		done[x], longest[x] = true, best
		return best
	}
	var out []Passage
	end := func(to string, x *Expr) {
		if x == nil {
			return
		}
		if r := walk(x); len(r.through) >= max(min, 1) {
			out = append(out, Passage{Module: m.Name, From: r.from, Through: r.through, To: to})
		}
	}
	for _, in := range m.Insts {
		for _, p := range in.Module.Ports {
			if p.Kind == Input {
				end(in.Name+"."+p.Name, in.Inputs[p.Name])
			}
		}
	}
	for _, s := range m.Signals {
		switch s.Kind {
		case Output:
			end(s.Name, s.Driver)
		case Reg:
			end(s.Name, s.Next)
			end(s.Name+" (enable)", s.Enable)
		}
	}
	return out
}
