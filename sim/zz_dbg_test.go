package sim

import (
	"testing"

	"github.com/hwgen/hwgen/blocks/systolic"
	"github.com/hwgen/hwgen/hdl"
)

func TestDbgPE(t *testing.T) {
	cfg := systolic.DefaultConfig()
	d, err := hdl.Elaborate(systolic.PE(cfg))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := New(d)
	for i, n := range s.nodes {
		t.Logf("%d: op %d w %d aw %d sa %d sb %d", i, n.op, n.w, n.aw, n.sa, n.sb)
	}
	for _, m := range d.Modules {
		for _, sig := range m.Signals {
			if sig.Kind == hdl.Reg && sig.Next != nil {
				t.Logf("%s.next = %s", sig.Name, dump(sig.Next))
			}
		}
	}
}

func dump(x *hdl.Expr) string {
	if x.Op == hdl.OpSignal {
		return x.Sig.Name
	}
	if x.Op == hdl.OpConst {
		return x.Const.String()
	}
	s := x.Op.String() + "("
	for i, a := range x.Args {
		if i > 0 {
			s += ","
		}
		s += dump(a)
	}
	return s + ")"
}
