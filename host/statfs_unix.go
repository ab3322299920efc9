//go:build linux || darwin

package host

import (
	"path/filepath"
	"syscall"
)

// fileSystemFull reports whether the file system holding path has no block left for an
// unprivileged writer.
func fileSystemFull(path string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(filepath.Dir(path), &st) == nil && st.Bavail == 0
}
