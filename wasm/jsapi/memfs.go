package jsapi

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// MemFS is a read-only in-memory fs.FS of uploaded files. A name is found by its cleaned
// path, or, when no such file exists, by its base name if exactly one upload has that base
// name (so a config that says `paths: [traces/run.jsonl]` finds an upload named run.jsonl).
type MemFS struct {
	files map[string][]byte
	names []string // sorted
}

// NewMemFS builds a MemFS; names are cleaned and stripped of a leading "/" or "./".
func NewMemFS(files map[string][]byte) *MemFS {
	m := &MemFS{files: make(map[string][]byte, len(files))}
	for name, data := range files {
		n := cleanName(name)
		if n == "" || n == "." {
			continue
		}
		m.files[n] = data
		m.names = append(m.names, n)
	}
	sort.Strings(m.names)
	return m
}

func cleanName(name string) string {
	n := path.Clean(strings.ReplaceAll(name, "\\", "/"))
	n = strings.TrimLeft(n, "/")
	n = strings.TrimPrefix(n, "./")
	return n
}

// resolve finds the stored name for a requested name ("" when there is none).
func (m *MemFS) resolve(name string) string {
	n := cleanName(name)
	if _, ok := m.files[n]; ok {
		return n
	}
	base := path.Base(n)
	found := ""
	for _, k := range m.names {
		if path.Base(k) == base {
			if found != "" {
				return "" // ambiguous
			}
			found = k
		}
	}
	return found
}

// Open implements fs.FS.
func (m *MemFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &memDir{m: m}, nil
	}
	k := m.resolve(name)
	if k == "" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{name: path.Base(k), r: bytes.NewReader(m.files[k]), size: int64(len(m.files[k]))}, nil
}

// ReadFile implements fs.ReadFileFS.
func (m *MemFS) ReadFile(name string) ([]byte, error) {
	k := m.resolve(name)
	if k == "" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(m.files[k]), nil
}

type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size, false}, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	m   *MemFS
	pos int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{".", 0, true}, nil }
func (d *memDir) Read([]byte) (int, error)   { return 0, io.EOF }
func (d *memDir) Close() error               { return nil }

// ReadDir lists every uploaded file (flattened) at the root.
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	for d.pos < len(d.m.names) && (n <= 0 || len(out) < n) {
		k := d.m.names[d.pos]
		out = append(out, fs.FileInfoToDirEntry(memInfo{k, int64(len(d.m.files[k])), false}))
		d.pos++
	}
	if n > 0 && len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}

type memInfo struct {
	name  string
	size  int64
	isDir bool
}

func (i memInfo) Name() string { return path.Base(i.name) }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.isDir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.isDir }
func (i memInfo) Sys() any           { return nil }

// Stat implements fs.StatFS.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	if name == "." {
		return memInfo{".", 0, true}, nil
	}
	k := m.resolve(name)
	if k == "" {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return memInfo{k, int64(len(m.files[k])), false}, nil
}
