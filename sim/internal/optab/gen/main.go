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
	for _, f := range optab.LoopFiles {
		src, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		if src, err = optab.Splice(src); err != nil {
			log.Fatalf("%s: %v", f, err)
		}
		if err := os.WriteFile(f, src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
