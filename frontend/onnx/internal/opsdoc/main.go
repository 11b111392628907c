// Command opsdoc writes docs/onnx-ops.md, the table of the ONNX operators
// hwgen supports, from onnx.OpTable. go generate ./frontend/onnx runs it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hwgen/hwgen/frontend/onnx"
)

func main() {
	out := flag.String("o", "", "write the Markdown to this file (default: standard output)")
	flag.Parse()
	md := []byte(onnx.OpsMarkdown())
	var err error
	if *out == "" {
		_, err = os.Stdout.Write(md)
	} else {
		err = os.WriteFile(*out, md, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "opsdoc: %v\n", err)
		os.Exit(1)
	}
}
