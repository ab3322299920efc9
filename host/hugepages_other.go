//go:build darwin

package host

// adviseHugePages does nothing where transparent huge pages are not a madvise option.
func adviseHugePages([]byte) {}
