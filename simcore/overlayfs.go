package simcore

import (
	"bytes"
	"io/fs"
	"time"
)

// drawnTraceDir is the directory name under which a calibration's drawn-length traces
// (CalibrateInput.LengthSpread) are visible to the replay; nothing is written to disk.
const drawnTraceDir = "calibration-drawn-lengths"

// overlayFS is base with one more file, name holding data, in memory (a nil base holds
// nothing else).
type overlayFS struct {
	base fs.FS
	name string
	data []byte
}

// Open opens the added file, or else the base's.
func (o overlayFS) Open(name string) (fs.File, error) {
	if name == o.name {
		return &memFile{name: name, Reader: bytes.NewReader(o.data)}, nil
	}
	if o.base == nil {
		return emptyFS{}.Open(name)
	}
	return o.base.Open(name)
}

// memFile is an open in-memory file of overlayFS.
type memFile struct {
	name string
	*bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f}, nil }
func (f *memFile) Close() error               { return nil }

// memInfo describes a memFile: a read-only regular file of its length, no time.
type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return i.f.name }
func (i memInfo) Size() int64        { return i.f.Reader.Size() }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
