package host

import "fmt"

// Address space under a limit (ulimit -v; docs/robustness.md, "Address-space limits"): the
// guest memories are reserved within it (memory_mmap.go) and the evaluator instances are
// as many as fit (evaluators.go).
const (
	// hostHeadroom is the address space left to the host's own Go runtime (its heap,
	// stacks and the compiled module) when a limit applies: the guest memories get the rest.
	hostHeadroom = 128 << 20
	// minReservation is the smallest guest memory reserved (64 MiB): the module's runtime
	// and the catalog take about half of it before it simulates anything.
	minReservation = 64 << 20
	// instanceReservation is what an evaluator instance is given room for: the 4 GiB of a
	// 32-bit WebAssembly memory, so it evaluates whatever the main instance would.
	instanceReservation = 4 << 30
)

// noRoomMessage says that the address-space limit leaves no room for the module's memory,
// and what limit would.
func noRoomMessage() string {
	used := mappedBytes()
	return fmt.Sprintf("the address-space limit (ulimit -v) of %d MiB leaves no room for the simulator's memory: the program maps %d MiB and needs %d MiB more for itself and at least %d MiB for the simulator; raise the limit to at least %d MiB (5 GiB lets one simulation use its whole 4 GiB)",
		addressSpaceLimit()>>20, used>>20, hostHeadroom>>20, minReservation>>20, (used+hostHeadroom+minReservation)>>20)
}

// instancesThatFit caps n evaluator instances to those whose full memory fits in the
// address space left under a limit (each is instanceReservation plus its share of
// hostHeadroom); n when there is no limit.
func instancesThatFit(n int) int {
	room, limited := addressSpaceRoom()
	if !limited {
		return n
	}
	return min(n, int(room/(instanceReservation+hostHeadroom/4)))
}
