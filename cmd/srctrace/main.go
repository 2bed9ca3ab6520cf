// Command srctrace reads the etcd source the way a reviewer would: it finds
// where a behaviour seen in a lab comes from, with file:line, from the real
// code of a real release.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
