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

// outputFile is one file of a run: its name in the output directory and what writes its
// bytes (streamed into a temporary file, so a large output is never held whole). A name may
// hold one folder ("configs/row.yaml"): the file goes into that subdirectory of the output
// directory, created by the same transaction (writeOutputs).
type outputFile struct {
	name  string
	write func(io.Writer) error
}

// bytesFile is an output whose bytes are already built.
func bytesFile(name string, b []byte) outputFile {
	return outputFile{name, func(w io.Writer) error { _, err := w.Write(b); return err }}
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
func writeOutputs(dir string, files []outputFile, overwrite bool) (err error) {
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
	for _, f := range files {
		sub, derr := outputDirs(dir, f.name)
		created = append(created, sub...)
		if derr != nil {
			return fmt.Errorf("could not write %s: %s", path.Join(dir, f.name), errText(derr))
		}
		tmp, werr := writeTemp(dir, f)
		if tmp != "" {
			temps = append(temps, tmp)
		}
		if werr != nil {
			return fmt.Errorf("could not write %s: %s", path.Join(dir, f.name), errText(werr))
		}
	}
	var old []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		st, lerr := os.Lstat(p)
		switch {
		case errors.Is(lerr, fs.ErrNotExist):
		case lerr != nil:
			return fmt.Errorf("could not write %s: %s", path.Join(dir, f.name), errText(lerr))
		case st.IsDir():
			return fmt.Errorf("could not write %s: a directory of that name is in the way; move it", path.Join(dir, f.name))
		default:
			old = append(old, p)
		}
	}
	if overwrite {
		old = append(old, staleOutputs(dir, files)...)
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
	for i, f := range files {
		p := filepath.Join(dir, f.name)
		if rerr := os.Rename(temps[i], p); rerr != nil {
			return fmt.Errorf("could not write %s: %s", path.Join(dir, f.name), errText(rerr))
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

// checkRecommendationsDir is checkOutputSubdir for recommendations/.
func checkRecommendationsDir(dir string) error {
	return checkOutputSubdir(dir, recommendationsDir, "recommendations are written")
}

// writeTemp writes f to a new temporary file in its directory under dir and returns its name ("" if none was
// created). The name starts with a dot and contains ".tmp-" (the host removes such files
// of an interrupted run).
func writeTemp(dir string, f outputFile) (string, error) {
	var tmp *os.File
	for i := 0; ; i++ {
		name := filepath.Join(dir, filepath.Dir(f.name), "."+path.Base(f.name)+".tmp-"+strconv.Itoa(i))
		var err error
		tmp, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, outputFileMode)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return "", err
		}
	}
	err := f.write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return tmp.Name(), err
}

// staleOutputs lists the known outputs (files or symbolic links, not directories) that this
// run does not rewrite, and the numbered recommendation files in dir/recommendations when
// that is a real directory. Other files are preserved.
func staleOutputs(dir string, files []outputFile) []string {
	var stale []string
	isFile := func(p string) bool {
		st, err := os.Lstat(p)
		return err == nil && !st.IsDir()
	}
	for _, name := range knownOutputs {
		writing := false
		for _, f := range files {
			writing = writing || f.name == name
		}
		if p := filepath.Join(dir, name); !writing && isFile(p) {
			stale = append(stale, p)
		}
	}
	stale = append(stale, staleDeployFiles(dir, files)...)
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
