//go:build !unix

package source

import "os"

// Elsewhere the work module is not locked: concurrent srctrace processes
// on one release may disturb each other's go commands.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) {}
