package host

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// WASI in wazero v1.12.0 has no errno for a full disk: a write failing with ENOSPC (or
// EDQUOT, EFBIG) reaches the module as EIO, which Go's wasip1 runtime prints as "I/O error".
// The host's output files learn the real reason by retrying the failed write once on a file
// of their own (a close or fsync: by doing it first on a descriptor of their own), remember
// it, and the module's stderr has "I/O error" replaced by it (docs/robustness.md, "Output
// files").

// guestEIOText is how Go's wasip1 runtime spells EIO (syscall.EIO.Error() in the module).
var guestEIOText = []byte("I/O error")

// outputFile is a file the module opened for writing: wazero's file, plus what the retry
// of a failed write needs.
type outputFile struct {
	experimentalsys.File
	fs       *outputFS
	hostPath string
	// writeAt retries a failed write on the host (an *os.File of hostPath; a test injects
	// a failing one).
	writeAt func(hostPath string, b []byte, off int64) (int, error)
	// noSpace reports whether the file system holding hostPath has no space left
	// (fileSystemFull; a test injects one).
	noSpace func(hostPath string) bool
	// own is the host's own descriptor of the file (openOwn), nil when it could not be opened.
	own *ownFile
}

// ownFile is a descriptor of an output file the host opened itself, right after the module
// created the file, so the errors the file system reports at close or fsync (a network file
// system reports a full disk or a quota there, when it flushes; every descriptor opened before
// the failed write-back sees the error) reach the host with their real errno, which wazero
// would pass on as EIO. sync and close are its methods (a test injects failing ones).
type ownFile struct {
	sync, close func() error
}

// openOwn opens the host's own descriptor of hostPath, which the module has just created as
// the file whose inode is ino; nil when it cannot (then an EIO at close is explained by
// statfs alone, explain).
func openOwn(hostPath string, ino uint64) *ownFile {
	f, err := os.OpenFile(hostPath, os.O_WRONLY, 0)
	if err != nil {
		return nil
	}
	if !sameInode(f, ino) { // replaced in between: not the module's file
		f.Close()
		return nil
	}
	return &ownFile{sync: f.Sync, close: f.Close}
}

// Close implements experimentalsys.File: the host's own descriptor is closed first, so a
// failure of the file system's flush is seen with its real reason; a close that fails with
// EIO and no reason is explained like a failed write.
func (f *outputFile) Close() experimentalsys.Errno {
	if f.own == nil {
		return f.explain(f.File.Close())
	}
	err := f.own.close()
	f.own = nil
	return f.hostFirst(err, f.File.Close())
}

// Sync implements experimentalsys.File (fsync), as Close: on the host's descriptor first.
func (f *outputFile) Sync() experimentalsys.Errno {
	if f.own == nil {
		return f.explain(f.File.Sync())
	}
	return f.hostFirst(f.own.sync(), f.File.Sync())
}

// Datasync implements experimentalsys.File (fdatasync), as Sync (an fsync on the host's
// descriptor, which covers the data).
func (f *outputFile) Datasync() experimentalsys.Errno {
	if f.own == nil {
		return f.explain(f.File.Datasync())
	}
	return f.hostFirst(f.own.sync(), f.File.Datasync())
}

// hostFirst is the result of a close or fsync done on the host's descriptor (err) and then on
// the module's (errno): the host's failure is remembered with its reason, and it fails the
// call even when the module's descriptor saw nothing (the file system may report an error
// once), so a failed flush never passes as written.
func (f *outputFile) hostFirst(err error, errno experimentalsys.Errno) experimentalsys.Errno {
	if err == nil {
		return f.explain(errno)
	}
	f.fs.rememberWriteError(err)
	if errno == 0 {
		errno = experimentalsys.UnwrapOSError(err)
	}
	return errno
}

// explain remembers ENOSPC as the reason of an EIO from close or fsync when the file's file
// system has no space left: the write that failed is gone, so the file system is asked.
func (f *outputFile) explain(errno experimentalsys.Errno) experimentalsys.Errno {
	if errno == experimentalsys.EIO && f.noSpace != nil && f.noSpace(f.hostPath) {
		f.fs.rememberWriteError(syscall.ENOSPC)
	}
	return errno
}

// writeAtHost writes b at off of the host file hostPath through a descriptor of its own.
func writeAtHost(hostPath string, b []byte, off int64) (int, error) {
	f, err := os.OpenFile(hostPath, os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	n, err := f.WriteAt(b, off)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// Write implements experimentalsys.File.
func (f *outputFile) Write(b []byte) (int, experimentalsys.Errno) {
	n, errno := f.File.Write(b)
	if errno != experimentalsys.EIO {
		return n, errno
	}
	off, serr := f.File.Seek(0, io.SeekCurrent)
	if serr != 0 {
		return n, errno
	}
	m, retryErrno := f.retry(b[n:], off)
	if retryErrno == 0 {
		if _, serr := f.File.Seek(off+int64(m), io.SeekStart); serr != 0 {
			return n, errno
		}
	}
	return n + m, retryErrno
}

// Pwrite implements experimentalsys.File.
func (f *outputFile) Pwrite(b []byte, off int64) (int, experimentalsys.Errno) {
	n, errno := f.File.Pwrite(b, off)
	if errno != experimentalsys.EIO {
		return n, errno
	}
	m, retryErrno := f.retry(b[n:], off+int64(n))
	return n + m, retryErrno
}

// retry writes b at off once more on the host; a failure is remembered with its real reason
// and returned to the module as EIO (all WASI can say).
func (f *outputFile) retry(b []byte, off int64) (int, experimentalsys.Errno) {
	n, err := f.writeAt(f.hostPath, b, off)
	if err == nil {
		return n, 0
	}
	f.fs.rememberWriteError(err)
	return n, experimentalsys.EIO
}

// rememberWriteError keeps the reason of a write that wazero could only pass on as EIO.
func (o *outputFS) rememberWriteError(err error) {
	var errno syscall.Errno
	if !errors.As(err, &errno) || errno == syscall.EIO {
		return
	}
	o.mu.Lock()
	o.writeErr = errno
	o.mu.Unlock()
}

// writeError is the real reason of the last failed write the module saw as EIO (0 = none).
func (o *outputFS) writeError() syscall.Errno {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.writeErr
}

// writeErrorText passes the module's stderr through, with "I/O error" replaced by the real
// reason once a write of the module failed for a reason WASI cannot name. The module writes
// each message in one piece, so the phrase is not split across writes.
type writeErrorText struct {
	w  io.Writer
	fs *outputFS
}

func (t writeErrorText) Write(p []byte) (int, error) {
	if errno := t.fs.writeError(); errno != 0 && bytes.Contains(p, guestEIOText) {
		_, err := t.w.Write(bytes.ReplaceAll(p, guestEIOText, []byte(errno.Error())))
		return len(p), err
	}
	return t.w.Write(p)
}
