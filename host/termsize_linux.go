package host

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalColumns is the width of the terminal f is, from the TIOCGWINSZ ioctl; 0 when f is
// not a terminal or the width is unknown.
func terminalColumns(f *os.File) int {
	var ws struct{ rows, cols, xpixel, ypixel uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0
	}
	return int(ws.cols)
}
