//go:build unix

package host

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// eioFile is a file whose writes fail as wazero reports a full disk: EIO.
type eioFile struct{ experimentalsys.File }

func (eioFile) Write([]byte) (int, experimentalsys.Errno)         { return 0, experimentalsys.EIO }
func (eioFile) Pwrite([]byte, int64) (int, experimentalsys.Errno) { return 0, experimentalsys.EIO }

// openFailing opens root/out.tmp through the output file system with writes failing as EIO
// and the host's retry doing what retryWrite does.
func openFailing(t *testing.T, retryWrite func(string, []byte, int64) (int, error)) (*outputFS, experimentalsys.File) {
	t.Helper()
	o := newOutputFS(t.TempDir())
	f, errno := o.OpenFile("out.tmp", experimentalsys.O_CREAT|experimentalsys.O_WRONLY, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	of, ok := f.(*outputFile)
	if !ok {
		t.Fatalf("a file opened for writing is a %T, want *outputFile", f)
	}
	of.File = eioFile{of.File}
	of.writeAt = retryWrite
	t.Cleanup(func() { f.Close() })
	return o, f
}

// A write failing with ENOSPC on the host reaches the module as EIO (all WASI can say), and
// the module's "I/O error" on stderr reads "no space left on device".
func TestFullDiskIsReportedAsNoSpace(t *testing.T) {
	full := func(string, []byte, int64) (int, error) {
		return 0, &os.PathError{Op: "write", Path: "out.tmp", Err: syscall.ENOSPC}
	}
	for name, write := range map[string]func(experimentalsys.File) experimentalsys.Errno{
		"write":  func(f experimentalsys.File) experimentalsys.Errno { _, e := f.Write([]byte("x")); return e },
		"pwrite": func(f experimentalsys.File) experimentalsys.Errno { _, e := f.Pwrite([]byte("x"), 4); return e },
	} {
		o, f := openFailing(t, full)
		if errno := write(f); errno != experimentalsys.EIO {
			t.Fatalf("%s: errno %v, want EIO", name, errno)
		}
		if got := o.writeError(); got != syscall.ENOSPC {
			t.Fatalf("%s: remembered %v, want ENOSPC", name, got)
		}
		var out bytes.Buffer
		w := writeErrorText{w: &out, fs: o}
		msg := "aisimulate predict failed: write out/.prediction.json.tmp-1: I/O error\n"
		if n, err := w.Write([]byte(msg)); n != len(msg) || err != nil {
			t.Fatalf("%s: Write = %d, %v", name, n, err)
		}
		if want := "aisimulate predict failed: write out/.prediction.json.tmp-1: no space left on device\n"; out.String() != want {
			t.Fatalf("%s: stderr %q, want %q", name, out.String(), want)
		}
	}
}

// Without a remembered reason (or when the host only saw EIO too) the text passes unchanged.
func TestIOErrorWithoutRealReasonIsUnchanged(t *testing.T) {
	o, f := openFailing(t, func(string, []byte, int64) (int, error) { return 0, syscall.EIO })
	if _, errno := f.Write([]byte("x")); errno != experimentalsys.EIO {
		t.Fatalf("errno %v, want EIO", errno)
	}
	var out bytes.Buffer
	msg := "write x: I/O error\n"
	writeErrorText{w: &out, fs: o}.Write([]byte(msg))
	if out.String() != msg {
		t.Fatalf("stderr %q, want it unchanged", out.String())
	}
}

// A retry that succeeds (the space came back) completes the write at the file's offset.
func TestWriteRetrySucceedsOnHost(t *testing.T) {
	o, f := openFailing(t, writeAtHost)
	if n, errno := f.Write([]byte("hello")); n != 5 || errno != 0 {
		t.Fatalf("Write = %d, %v; want 5, 0", n, errno)
	}
	if n, errno := f.Write([]byte(" world")); n != 6 || errno != 0 {
		t.Fatalf("Write = %d, %v; want 6, 0", n, errno)
	}
	got, err := os.ReadFile(filepath.Join(o.root, "out.tmp"))
	if err != nil || string(got) != "hello world" {
		t.Fatalf("file %q, %v; want %q", got, err, "hello world")
	}
	if o.writeError() != 0 {
		t.Fatalf("a successful retry remembered %v", o.writeError())
	}
}

// eioCloseFile is a file whose close and fsync fail with EIO, as a network file system may
// report a full disk when it flushes.
type eioCloseFile struct{ experimentalsys.File }

func (f eioCloseFile) Close() experimentalsys.Errno { f.File.Close(); return experimentalsys.EIO }
func (eioCloseFile) Sync() experimentalsys.Errno    { return experimentalsys.EIO }

// An EIO from close or fsync on a full file system reads "no space left on device"; on a
// file system with space it stays "I/O error".
func TestFullDiskAtCloseOrSync(t *testing.T) {
	for _, full := range []bool{true, false} {
		for name, op := range map[string]func(experimentalsys.File) experimentalsys.Errno{
			"close": func(f experimentalsys.File) experimentalsys.Errno { return f.Close() },
			"fsync": func(f experimentalsys.File) experimentalsys.Errno { return f.Sync() },
		} {
			o := newOutputFS(t.TempDir())
			f, errno := o.OpenFile("out.tmp", experimentalsys.O_CREAT|experimentalsys.O_WRONLY, 0)
			if errno != 0 {
				t.Fatal(errno)
			}
			of := f.(*outputFile)
			of.File = eioCloseFile{of.File}
			of.noSpace = func(string) bool { return full }
			if errno := op(f); errno != experimentalsys.EIO {
				t.Fatalf("%s: errno %v", name, errno)
			}
			want := syscall.Errno(0)
			if full {
				want = syscall.ENOSPC
			}
			if got := o.writeError(); got != want {
				t.Errorf("%s, full %v: remembered %v, want %v", name, full, got, want)
			}
			if name == "fsync" {
				f.Close()
			}
		}
	}
}

// A quota (or any reason) the file system reports when it flushes, at close or fsync, is seen
// on the host's own descriptor with its real errno: the module's "I/O error" reads "disk quota
// exceeded", and the call fails even when the module's own descriptor saw no error.
func TestQuotaAtCloseOrSync(t *testing.T) {
	quota := func() error { return &os.PathError{Op: "close", Path: "out.tmp", Err: syscall.EDQUOT} }
	for _, guestEIO := range []bool{true, false} {
		for name, op := range map[string]func(experimentalsys.File) experimentalsys.Errno{
			"close":    func(f experimentalsys.File) experimentalsys.Errno { return f.Close() },
			"fsync":    func(f experimentalsys.File) experimentalsys.Errno { return f.Sync() },
			"datasync": func(f experimentalsys.File) experimentalsys.Errno { return f.Datasync() },
		} {
			o := newOutputFS(t.TempDir())
			f, errno := o.OpenFile("out.tmp", experimentalsys.O_CREAT|experimentalsys.O_EXCL|experimentalsys.O_WRONLY, 0)
			if errno != 0 {
				t.Fatal(errno)
			}
			of := f.(*outputFile)
			if of.own == nil {
				t.Fatal("no host descriptor for a created output file")
			}
			realOwn := of.own
			of.own = &ownFile{sync: quota, close: func() error { realOwn.close(); return quota() }}
			if guestEIO {
				of.File = eioCloseFile{of.File}
			}
			of.noSpace = func(string) bool { return true } // a quota, not a full disk, is the reason
			if errno := op(f); errno == 0 {
				t.Fatalf("%s (module's descriptor failing %v): the call succeeded", name, guestEIO)
			}
			if got := o.writeError(); got != syscall.EDQUOT {
				t.Errorf("%s (module's descriptor failing %v): remembered %v, want EDQUOT", name, guestEIO, got)
			}
			var out bytes.Buffer
			writeErrorText{w: &out, fs: o}.Write([]byte("close x: I/O error\n"))
			if want := "close x: disk quota exceeded\n"; out.String() != want {
				t.Errorf("%s: stderr %q, want %q", name, out.String(), want)
			}
			if name != "close" {
				of.own = realOwn
				f.Close()
			}
		}
	}
}

// The host's descriptor is opened for the created file and closed with it; a close that
// fails nowhere succeeds and leaves nothing remembered.
func TestOwnDescriptorClosedWithFile(t *testing.T) {
	o := newOutputFS(t.TempDir())
	f, errno := o.OpenFile("out.tmp", experimentalsys.O_CREAT|experimentalsys.O_EXCL|experimentalsys.O_WRONLY, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	of := f.(*outputFile)
	closed := false
	realClose := of.own.close
	of.own.close = func() error { closed = true; return realClose() }
	if _, errno := f.Write([]byte("x")); errno != 0 {
		t.Fatal(errno)
	}
	if errno := f.Sync(); errno != 0 {
		t.Fatalf("fsync: %v", errno)
	}
	if errno := f.Close(); errno != 0 || !closed || of.own != nil || o.writeError() != 0 {
		t.Fatalf("close: %v, host descriptor closed %v (own %v), remembered %v", errno, closed, of.own, o.writeError())
	}
}
