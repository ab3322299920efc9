package host

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// addressSpaceRoom is how much more address space the process may map under its limit
// (RLIMIT_AS, `ulimit -v`), less hostHeadroom; limited is false when there is no limit.
func addressSpaceRoom() (room uint64, limited bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur == ^uint64(0) {
		return 0, false
	}
	used := mappedBytes()
	if lim.Cur <= used+hostHeadroom {
		return 0, true
	}
	return lim.Cur - used - hostHeadroom, true
}

// addressSpaceLimit is RLIMIT_AS, 0 when unlimited (for messages).
func addressSpaceLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur == ^uint64(0) {
		return 0
	}
	return lim.Cur
}

// mappedBytes is the process's mapped address space now (the first field of
// /proc/self/statm, in pages); 0 when unknown.
func mappedBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	pages, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
