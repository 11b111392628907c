// Command gen writes sim/ops_gen.go from the operator table and splices
// the table's cases into the interpreter's loop; go generate in sim/
// runs it.
package main

import (
	"log"
	"os"

	"github.com/hwgen/hwgen/sim/internal/optab"
)

func main() {
	ops, err := optab.Opcodes()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(optab.OpcodeFile, ops, 0o644); err != nil {
		log.Fatal(err)
	}
	src, err := os.ReadFile(optab.LoopFile)
	if err != nil {
		log.Fatal(err)
	}
	if src, err = optab.Splice(src); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(optab.LoopFile, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
