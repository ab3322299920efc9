package host

import (
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// outputFS is the module's view of the host file system (sysfs.DirFS of "/") with two
// changes (docs/robustness.md, "Output files"):
//
//   - files and directories are created with modes 0666 and 0777, so the process umask
//     decides their permissions as for any tool (WASI has no modes: wazero itself would
//     create every file 0600 and every directory 0700);
//   - it remembers what an interrupt must undo: temporary output files not yet renamed into
//     place, old outputs moved aside and not yet deleted, and directories it created.
type outputFS struct {
	experimentalsys.FS
	mu      sync.Mutex
	temps   map[string]bool   // temporary files created and not renamed or removed
	aside   map[string]string // moved-aside name → original name
	created []string          // directories created, in order
	root    string            // the host directory the module's paths are relative to
	// writeErr is the real reason of the last write the module saw as EIO (writeerror.go).
	writeErr syscall.Errno
}

// The output writer's names (wasm/cli/outputs.go): ".<name>.tmp-N" while a new file is being
// written, ".<name>.old-N" while an old one waits to be deleted.
var (
	tempName  = regexp.MustCompile(`^\..+\.tmp-[0-9]+$`)
	asideName = regexp.MustCompile(`^\..+\.old-[0-9]+$`)
)

func newOutputFS(root string) *outputFS {
	return &outputFS{FS: sysfs.DirFS(root), root: root, temps: map[string]bool{}, aside: map[string]string{}}
}

// OpenFile implements experimentalsys.FS.
func (o *outputFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if flag&experimentalsys.O_CREAT != 0 {
		perm = 0o666
	}
	f, errno := o.FS.OpenFile(p, flag, perm)
	if errno == 0 && flag&experimentalsys.O_EXCL != 0 && tempName.MatchString(path.Base(p)) {
		o.mu.Lock()
		o.temps[p] = true
		o.mu.Unlock()
	}
	if errno == 0 && flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR) != 0 {
		of := &outputFile{File: f, fs: o, hostPath: filepath.Join(o.root, filepath.FromSlash(p)), writeAt: writeAtHost, noSpace: fileSystemFull}
		if ino, ierr := f.Ino(); flag&experimentalsys.O_CREAT != 0 && ierr == 0 {
			of.own = openOwn(of.hostPath, ino)
		}
		f = of
	}
	return f, errno
}

// Mkdir implements experimentalsys.FS.
func (o *outputFS) Mkdir(p string, _ fs.FileMode) experimentalsys.Errno {
	errno := o.FS.Mkdir(p, 0o777)
	if errno == 0 {
		o.mu.Lock()
		o.created = append(o.created, p)
		o.mu.Unlock()
	}
	return errno
}

// Rename implements experimentalsys.FS.
func (o *outputFS) Rename(from, to string) experimentalsys.Errno {
	o.mu.Lock()
	defer o.mu.Unlock()
	errno := o.FS.Rename(from, to)
	if errno == 0 {
		delete(o.temps, from)
		if orig, ok := o.aside[from]; ok {
			delete(o.aside, from)
			if orig != to {
				o.aside[to] = orig
			}
		} else if asideName.MatchString(path.Base(to)) {
			o.aside[to] = from
		}
	}
	return errno
}

// Unlink implements experimentalsys.FS.
func (o *outputFS) Unlink(p string) experimentalsys.Errno {
	o.mu.Lock()
	defer o.mu.Unlock()
	errno := o.FS.Unlink(p)
	if errno == 0 {
		delete(o.temps, p)
		delete(o.aside, p)
	}
	return errno
}

// undo removes the temporary files, puts moved-aside outputs back and removes the
// directories created (when empty): what an interrupted run leaves is what it found.
func (o *outputFS) undo() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for p := range o.temps {
		o.FS.Unlink(p)
	}
	for p, orig := range o.aside {
		o.FS.Rename(p, orig)
	}
	for i := len(o.created) - 1; i >= 0; i-- {
		o.FS.Rmdir(o.created[i])
	}
	o.temps, o.aside, o.created = map[string]bool{}, map[string]string{}, nil
}

// running is the outputFS of the module running now, for the interrupt handler.
var running struct {
	sync.Mutex
	fs *outputFS
}

// undoRunning undoes the running module's unfinished outputs (on SIGINT/SIGTERM).
func undoRunning() {
	running.Lock()
	defer running.Unlock()
	if running.fs != nil {
		running.fs.undo()
	}
}
