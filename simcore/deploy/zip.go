package deploy

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"strings"
	"time"
)

// zipTime is every entry's modification time: the start of the zip format's epoch, so the
// archive's bytes depend on the files only.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Zip is one archive of files (the browser's download of deploy/): each entry under its
// name, in the order given, deflated, with a fixed time; launch scripts are executable.
func Zip(files []File) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: zipTime}
		mode := 0o644
		if strings.HasSuffix(f.Name, ".sh") {
			mode = 0o755
		}
		h.SetMode(fileMode(mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fileMode is a permission as an fs.FileMode.
func fileMode(perm int) fs.FileMode { return fs.FileMode(perm) }
