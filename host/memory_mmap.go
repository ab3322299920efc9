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
func withMemory(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(
		func(_, max uint64) experimental.LinearMemory {
			buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
				syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
			if err != nil {
				return &heapMemory{}
			}
			adviseHugePages(buf)
			return &mmapMemory{buf: buf}
		}))
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

// heapMemory is the fallback when the reservation fails: a Go slice grown by append.
type heapMemory struct{ buf []byte }

// Reallocate grows the slice to size bytes.
func (m *heapMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		nb := make([]byte, size, size+size/4)
		copy(nb, m.buf)
		m.buf = nb
	}
	m.buf = m.buf[:size]
	return m.buf
}

// Free drops the slice.
func (m *heapMemory) Free() { m.buf = nil }
