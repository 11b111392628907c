package main

import (
	"strings"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// opsHelp lists the ops of onnx.OpTable that keep takes, a group of one Doc
// per entry: the names, then the Doc wrapped in a second column. The lines
// are indented, so kong prints them as they are.
func opsHelp(keep func(onnx.Op) bool) string {
	const indent, col, width = 2, 23, 80
	var b strings.Builder
	for _, g := range onnx.OpGroups(keep) {
		line := strings.Repeat(" ", indent) + strings.Join(g.Names, ", ")
		if len(line) < col-1 {
			line += strings.Repeat(" ", col-len(line))
		} else {
			line += "   "
		}
		fresh := true // nothing of the Doc on line yet
		for _, w := range strings.Fields(g.Doc) {
			if !fresh && len([]rune(line))+1+len([]rune(w)) > width {
				b.WriteString(line + "\n")
				line, fresh = strings.Repeat(" ", col), true
			}
			if !fresh {
				line += " "
			}
			line += w
			fresh = false
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// npuOps and foldedOps choose the ops hwgen run maps onto the NPU and those
// it takes only inside a constant subgraph (which it folds); the float
// executor runs the latter anywhere, as their Docs say.
func npuOps(o onnx.Op) bool    { return o.NPU }
func foldedOps(o onnx.Op) bool { return o.Float && !o.NPU }
