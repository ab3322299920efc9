//go:build unix

package host

import (
	"os"
	"syscall"
)

// sameInode reports whether f is the regular file whose inode number is ino.
func sameInode(f *os.File, ino uint64) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && st.Mode().IsRegular() && uint64(sys.Ino) == ino
}
