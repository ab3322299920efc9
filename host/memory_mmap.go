//go:build linux || darwin

package host

import (
	"context"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// withMemory makes the module's linear memory an anonymous mapping of its maximum size,
// reserved but not committed (MAP_NORESERVE): pages cost memory only once touched, growing
// never copies, and the Go heap (and its GC) never sees the guest memory. With wazero's
// default, each memory.grow copies the buffer, and a reused 4 GiB Go allocation is cleared
// in full on every run.
//
// Under an address-space limit (ulimit -v, counted on reservations too) the full size may be
// refused: the reservation is then halved until it fits, down to minReservation. The
// module's memory is that much; growth past it fails inside the module, which reports an
// out-of-memory in one line (crash.go), never a crash of the host. With no room even for
// minReservation the memory cannot hold the module and instantiation fails; Run says so.
func withMemory(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(
		func(_, max uint64) experimental.LinearMemory { return reserve(max) }))
}

// reserve maps the largest of max, max/2, … (at least minReservation) that the address space
// allows; a memory of no bytes when none does.
func reserve(max uint64) *mmapMemory {
	size := max
	if room, limited := addressSpaceRoom(); limited && room < size {
		size = room &^ (64<<10 - 1) // whole WebAssembly pages
	}
	for ; size >= minReservation; size /= 2 {
		buf, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err == nil {
			adviseHugePages(buf)
			return &mmapMemory{buf: buf}
		}
	}
	return &mmapMemory{}
}

// mmapMemory is a linear memory backed by one reserved mapping.
type mmapMemory struct{ buf []byte }

// Reallocate returns the first size bytes of the mapping, or nil beyond its end.
func (m *mmapMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

// Free unmaps the memory when the module is closed.
func (m *mmapMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}
