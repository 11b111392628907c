package verilog

import (
	"fmt"
	"strings"

	"github.com/hwgen/hwgen/hdl"
)

// MacroMemoryName is the name of the array inside every macro model, so
// tools (and the cross-check harness) can reach its contents.
const MacroMemoryName = hdl.MacroArrayName

// macroModel builds the behavioural model of the SRAM macro for mem with
// the DSL itself, so it has exactly the semantics of an inferable memory:
// one write port (with a bit mask for the _m variant), one synchronous
// read port with enable, read-before-write.
func macroModel(mem *hdl.Memory) *hdl.Module {
	m := hdl.NewModule(mem.MacroName())
	aw := mem.AddrType
	data := hdl.UInt(mem.Type.Width)
	we := m.Input("we", hdl.Bool)
	waddr := m.Input("waddr", aw)
	wdata := m.Input("wdata", data)
	array := m.Memory(MacroMemoryName, mem.Depth, data)
	if strings.HasSuffix(mem.MacroName(), "_m") {
		array.WriteMasked(waddr, wdata, we, m.Input("wmask", data))
	} else {
		array.Write(waddr, wdata, we)
	}
	for k := range max(len(mem.Reads), 1) {
		sfx := macroReadSuffix(k)
		re := m.Input("re"+sfx, hdl.Bool)
		raddr := m.Input("raddr"+sfx, aw)
		m.Output("rdata"+sfx, data).Set(array.ReadEnabled("rd"+sfx, raddr, re))
	}
	return m
}

// macroReadSuffix names read port k of a macro: re, raddr, rdata for
// the first, re2, raddr2, rdata2 for the second.
func macroReadSuffix(k int) string {
	if k == 0 {
		return ""
	}
	return fmt.Sprint(k + 1)
}

// macroHeader tells a reader what the model file is for.
func macroHeader(mem *hdl.Memory) string {
	reads := "one synchronous\n// read port"
	if n := len(mem.Reads); n > 1 {
		reads = fmt.Sprintf("%d independent\n// synchronous read ports", n)
	}
	return fmt.Sprintf("// Behavioural model of an SRAM macro: %d words x %d bits, one write port, %s (data the cycle after the address; a read of the address being\n"+
		"// written returns the old word). Replace this file with a foundry macro of the same name and ports.\n", mem.Depth, mem.Type.Width, reads)
}

// macroInstance renders the instance of mem's macro inside its module.
func (w *moduleWriter) macroInstance(mem *hdl.Memory) string {
	aw, dw := mem.AddrType, hdl.UInt(mem.Type.Width)
	zeroA, zeroD := literal(aw, bigInt(0)), literal(dw, bigInt(0))
	conns := []string{".clk(clk)"}
	if len(mem.Writes) == 1 {
		p := mem.Writes[0]
		conns = append(conns, ".we("+w.operand(p.En)+")", ".waddr("+w.operand(p.Addr)+")", ".wdata("+w.operand(p.Data)+")")
		if p.Mask != nil {
			conns = append(conns, ".wmask("+w.operand(p.Mask)+")")
		}
	} else {
		conns = append(conns, ".we(1'b0)", ".waddr("+zeroA+")", ".wdata("+zeroD+")")
	}
	if len(mem.Reads) > 0 {
		for k, p := range mem.Reads {
			en, sfx := "1'b1", macroReadSuffix(k)
			if p.En != nil {
				en = w.operand(p.En)
			}
			conns = append(conns, ".re"+sfx+"("+en+")", ".raddr"+sfx+"("+w.operand(p.Addr)+")", ".rdata"+sfx+"("+p.Data.Name+")")
		}
	} else {
		conns = append(conns, ".re(1'b0)", ".raddr("+zeroA+")", ".rdata("+w.unreadMacroData(mem)+")")
	}
	return fmt.Sprintf("  %s %s (\n    %s\n  );\n", mem.MacroName(), mem.Name, strings.Join(conns, ",\n    "))
}

// unreadMacroData declares a wire for the data output of a macro nobody
// reads, waived for lint.
func (w *moduleWriter) unreadMacroData(mem *hdl.Memory) string {
	name := "_" + mem.Name + "_rdata"
	fmt.Fprintf(&w.logic, "  wire %s%s;\n", declType(hdl.UInt(mem.Type.Width)), name)
	w.usage.track(name, mem.Type.Width)
	return name
}
