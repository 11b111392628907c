// Command gen writes sim/ops_gen.go from the operator table; run it with
// go generate in sim/.
package main

import (
	"log"
	"os"

	"github.com/hwgen/hwgen/sim/internal/optab"
)

func main() {
	src, err := optab.Interpreter()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(optab.GenFile, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
