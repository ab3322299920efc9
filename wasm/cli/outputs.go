package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// knownOutputs are the files --overwrite may delete (README.md, "Output files"); everything
// else in the output directory is preserved.
var knownOutputs = []string{
	"prediction.json", "recommendation.json", "recommendation.csv", "requests.jsonl",
	"resource-plan.json", "resource-runtime.json", "execution-events.jsonl",
	"afd-replay-spec.json", "afd-qualification.json", calibrationFile,
}

// recommendationsDir holds numbered recommendation files (NNNN.yaml) --overwrite deletes.
const recommendationsDir = "recommendations"

var numberedRecommendation = regexp.MustCompile(`^[0-9]{4}\.yaml$`)

// outputFiles are files of a run that one function writes: their names in the output
// directory and the writer, which gets one io.Writer per name, in order (each streamed into
// a temporary file, so a large output is never held whole; a captured prediction writes
// prediction.json and requests.jsonl in one pass, encoding each record once). A name may
// hold folders ("configs/row.yaml"): the file goes into that subdirectory of the output
// directory, created by the same transaction (writeOutputs).
type outputFiles struct {
	names []string
	write func(ws []io.Writer) error
}

// bytesFile is an output whose bytes are already built.
func bytesFile(name string, b []byte) outputFiles {
	return outputFiles{[]string{name}, func(ws []io.Writer) error { _, err := ws[0].Write(b); return err }}
}

// Permissions requested for outputs; the process umask applies, as for any tool's outputs
// (the native host forwards them to the operating system, docs/robustness.md).
const (
	outputFileMode = 0o666
	outputDirMode  = 0o777
)

// writeOutputs writes the run's files into dir as one transaction (docs/robustness.md,
// "Output files"):
//
//  1. create dir (and missing parents) and the directories the files' names hold (outputDirs:
//     an existing one must be a real directory, not a link), write every file to a temporary
//     name beside its place;
//  2. check that nothing is in the way of a new file (a directory of that name);
//  3. move the old files aside: the ones this run replaces and, with overwrite, the known
//     outputs it does not write (never through a symbolic link: a link named
//     recommendations is not a directory of ours);
//  4. rename the new files into place, then delete what was moved aside.
//
// Any failure undoes every step: the old files are back under their names, no temporary file
// is left, and directories this call created are removed again.
func writeOutputs(dir string, groups []outputFiles, overwrite bool) (err error) {
	created, err := mkdirAll(dir)
	if err != nil {
		return fmt.Errorf("could not create output directory %s: %s", dir, errText(err))
	}
	var temps, placed []string
	var aside [][2]string // {backup name, original name}
	defer func() {
		if err == nil {
			for _, a := range aside {
				os.Remove(a[0])
			}
			if overwrite {
				removeEmptyDeployDirs(dir)
			}
			return
		}
		for _, p := range placed {
			os.Remove(p)
		}
		for i := len(aside) - 1; i >= 0; i-- {
			os.Rename(aside[i][0], aside[i][1])
		}
		for _, t := range temps {
			os.Remove(t)
		}
		for i := len(created) - 1; i >= 0; i-- {
			os.Remove(created[i]) // only empty directories go
		}
	}()
	var names []string
	for _, g := range groups {
		for _, name := range g.names {
			sub, derr := outputDirs(dir, name)
			created = append(created, sub...)
			if derr != nil {
				return fmt.Errorf("could not write %s: %s", path.Join(dir, name), errText(derr))
			}
		}
		tmps, werr := writeTemps(dir, g)
		temps = append(temps, tmps...)
		if werr != nil {
			return werr
		}
		names = append(names, g.names...)
	}
	var old []string
	for _, name := range names {
		p := filepath.Join(dir, name)
		st, lerr := os.Lstat(p)
		switch {
		case errors.Is(lerr, fs.ErrNotExist):
		case lerr != nil:
			return fmt.Errorf("could not write %s: %s", path.Join(dir, name), errText(lerr))
		case st.IsDir():
			return fmt.Errorf("could not write %s: a directory of that name is in the way; move it", path.Join(dir, name))
		default:
			old = append(old, p)
		}
	}
	if overwrite {
		old = append(old, staleOutputs(dir, names)...)
	}
	for _, p := range old {
		backup, berr := freeAsideName(p)
		if berr != nil {
			return fmt.Errorf("could not replace old output %s: %s", p, errText(berr))
		}
		if rerr := os.Rename(p, backup); rerr != nil {
			return fmt.Errorf("could not replace old output %s: %s", p, errText(rerr))
		}
		aside = append(aside, [2]string{backup, p})
	}
	for i, name := range names {
		p := filepath.Join(dir, name)
		if rerr := os.Rename(temps[i], p); rerr != nil {
			return fmt.Errorf("could not write %s: %s", path.Join(dir, name), errText(rerr))
		}
		placed = append(placed, p)
	}
	temps = nil
	return nil
}

// freeAsideName is the name an old output p waits under before it is deleted,
// ".<name>.old-N" with the smallest N no file has: a rename replaces its target, so a name a
// user's own file already has (".prediction.json.old-0") would delete that file; this writer
// deletes only what it moved aside itself.
func freeAsideName(p string) (string, error) {
	for i := 0; i < 1000; i++ {
		name := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".old-"+strconv.Itoa(i))
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
	}
	return "", errors.New("1000 files named ." + filepath.Base(p) + ".old-N are in the way; remove them")
}

// checkOutputSubdir refuses an entry sub of dir (recommendations, deploy, configs) that is not a real
// directory, before a run and again before writing: numbered configurations and deployments
// go into directories of this tool's outputs, never through a symbolic link into another
// directory, where replacing 0001.yaml or deploy/0001/README.md would change files the user
// did not give as outputs. writes names what would be written there, for the message.
func checkOutputSubdir(dir, sub, writes string) error {
	p := filepath.Join(dir, sub)
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &usageError{topUsage, "aisimulate", "output directory " + p + ": " + errText(err)}
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		return &usageError{topUsage, "aisimulate", "output directory " + p + " is a symbolic link (to " + target + "); " + writes + " only into a real directory: remove the link or choose another --output-dir"}
	case !st.IsDir():
		return &usageError{topUsage, "aisimulate", "output directory " + p + " is not a directory; move it or choose another --output-dir"}
	}
	return nil
}

// writeTemps writes the files of g to new temporary files in dir, one per name in order, and
// returns the names of the files it created (all of them when it succeeds). A name starts
// with a dot and contains ".tmp-" (the host removes such files of an interrupted run). The
// error names the file that failed.
func writeTemps(dir string, g outputFiles) ([]string, error) {
	var tmps []*os.File
	var created []string
	defer func() {
		for _, t := range tmps {
			t.Close() // after a failure only: the files are closed below on success
		}
	}()
	fail := func(i int, err error) ([]string, error) {
		return created, fmt.Errorf("could not write %s: %s", path.Join(dir, g.names[i]), errText(err))
	}
	for n, name := range g.names {
		tmp, err := createTemp(dir, name)
		if err != nil {
			return fail(n, err)
		}
		tmps = append(tmps, tmp)
		created = append(created, tmp.Name())
	}
	ws := make([]io.Writer, len(tmps))
	for i, t := range tmps {
		ws[i] = tempWriter{i, t}
	}
	err := g.write(ws)
	var failed *tempWriteError
	if errors.As(err, &failed) {
		return fail(failed.i, failed.err)
	}
	if err != nil {
		return fail(0, err)
	}
	all := tmps
	tmps = nil
	for i, t := range all {
		if err := t.Close(); err != nil {
			return fail(i, err)
		}
	}
	return created, nil
}

// tempWriter is temporary file i of a group; its write errors say which file failed.
type tempWriter struct {
	i int
	f *os.File
}

func (w tempWriter) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	if err != nil {
		err = &tempWriteError{w.i, err}
	}
	return n, err
}

// tempWriteError is a write error of temporary file i of a group.
type tempWriteError struct {
	i   int
	err error
}

func (e *tempWriteError) Error() string { return e.err.Error() }
func (e *tempWriteError) Unwrap() error { return e.err }

// createTemp creates the first free temporary name ".<base>.tmp-N" for the output name
// (which may have a directory, made by outputDirs) under dir.
func createTemp(dir, name string) (*os.File, error) {
	for i := 0; ; i++ {
		tmp, err := os.OpenFile(filepath.Join(dir, filepath.Dir(name), "."+path.Base(name)+".tmp-"+strconv.Itoa(i)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, outputFileMode)
		if err == nil || !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return tmp, err
		}
	}
}

// checkRecommendationsDir is checkOutputSubdir for recommendations/.
func checkRecommendationsDir(dir string) error {
	return checkOutputSubdir(dir, recommendationsDir, "recommendations are written")
}

// staleOutputs lists the known outputs (files or symbolic links, not directories) that this
// run does not rewrite, and the numbered recommendation files in dir/recommendations when
// that is a real directory. Other files are preserved.
func staleOutputs(dir string, writing []string) []string {
	var stale []string
	isFile := func(p string) bool {
		st, err := os.Lstat(p)
		return err == nil && !st.IsDir()
	}
	for _, name := range knownOutputs {
		if p := filepath.Join(dir, name); !slices.Contains(writing, name) && isFile(p) {
			stale = append(stale, p)
		}
	}
	stale = append(stale, staleDeployFiles(dir, writing)...)
	rec := filepath.Join(dir, recommendationsDir)
	if st, err := os.Lstat(rec); err == nil && st.IsDir() {
		entries, _ := os.ReadDir(rec)
		for _, e := range entries {
			if p := filepath.Join(rec, e.Name()); numberedRecommendation.MatchString(e.Name()) && isFile(p) {
				stale = append(stale, p)
			}
		}
	}
	return stale
}

// mkdirAll is os.MkdirAll returning the directories it created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], outputDirMode); err != nil && !errors.Is(err, fs.ErrExist) {
			for j := len(created) - 1; j >= 0; j-- {
				os.Remove(created[j])
			}
			return nil, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}
