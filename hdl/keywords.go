package hdl

// verilogKeywords are reserved words of Verilog-2005 and SystemVerilog that
// Verilator also rejects as identifiers; user names must avoid them.
var verilogKeywords = map[string]bool{}

func init() {
	for _, k := range []string{
		"always", "and", "assign", "automatic", "begin", "buf", "bufif0", "bufif1", "case", "casex", "casez",
		"cell", "cmos", "config", "deassign", "default", "defparam", "design", "disable", "edge", "else",
		"end", "endcase", "endconfig", "endfunction", "endgenerate", "endmodule", "endprimitive",
		"endspecify", "endtable", "endtask", "event", "for", "force", "forever", "fork", "function",
		"generate", "genvar", "highz0", "highz1", "if", "ifnone", "incdir", "include", "initial", "inout",
		"input", "instance", "integer", "join", "large", "liblist", "library", "localparam", "macromodule",
		"medium", "module", "nand", "negedge", "nmos", "nor", "noshowcancelled", "not", "notif0", "notif1",
		"or", "output", "parameter", "pmos", "posedge", "primitive", "pull0", "pull1", "pulldown", "pullup",
		"pulsestyle_onevent", "pulsestyle_ondetect", "rcmos", "real", "realtime", "reg", "release", "repeat",
		"rnmos", "rpmos", "rtran", "rtranif0", "rtranif1", "scalared", "showcancelled", "signed", "small",
		"specify", "specparam", "strong0", "strong1", "supply0", "supply1", "table", "task", "time", "tran",
		"tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior", "trireg", "unsigned", "use", "uwire",
		"vectored", "wait", "wand", "weak0", "weak1", "while", "wire", "wor", "xnor", "xor",
		// SystemVerilog words Verilator reserves even in Verilog mode.
		"bit", "byte", "int", "logic", "shortint", "longint", "string", "class", "package", "interface",
		"program", "property", "sequence", "type", "void", "return", "break", "continue", "do", "enum",
		"struct", "union", "typedef", "const", "static", "extern", "local", "protected", "virtual", "new",
		"null", "this", "super", "bind", "chandle", "clocking", "constraint", "cover", "assert", "assume",
		"final", "import", "export", "inside", "modport", "priority", "unique", "unique0", "var", "ref",
		"alias", "always_comb", "always_ff", "always_latch", "foreach", "randomize", "with", "matches",
		"tagged", "wildcard", "context", "pure", "randc", "rand", "solve", "before", "after", "dist",
		"first_match", "intersect", "throughout", "within", "expect", "restrict", "timeprecision",
		"timeunit", "shortreal", "iff", "covergroup", "coverpoint", "cross", "bins", "binsof",
		"illegal_bins", "ignore_bins", "endclass", "endclocking", "endgroup", "endinterface",
		"endpackage", "endprogram", "endproperty", "endsequence", "extends", "forkjoin", "implements",
		"join_any", "join_none", "let", "nettype", "interconnect", "soft", "untyped",
	} {
		verilogKeywords[k] = true
	}
}
