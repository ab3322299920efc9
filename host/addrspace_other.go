//go:build !linux

package host

// addressSpaceRoom reports no address-space limit where the host does not read one.
func addressSpaceRoom() (room uint64, limited bool) { return 0, false }

// addressSpaceLimit is 0: no limit known.
func addressSpaceLimit() uint64 { return 0 }

// mappedBytes is 0: not known.
func mappedBytes() uint64 { return 0 }
