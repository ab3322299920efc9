package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"

	"aisimulate/simcore"
	"aisimulate/simcore/deploy"
)

// The files of deploy/NNNN/ --overwrite may delete (docs/artifacts.md): the generator's
// fixed names, and launch/<role>.sh and .yaml.
var (
	deployNumber = regexp.MustCompile(`^[0-9]{4}$`)
	deployFile   = regexp.MustCompile(`^(` + regexp.QuoteMeta(deploy.ManifestName) + `|` + regexp.QuoteMeta(deploy.ReadmeName) + `)$`)
	launchFile   = regexp.MustCompile(`^(aggregated|prefill|decode)\.(sh|yaml)$`)
)

// artifactFiles turns generated deployment files into outputs, refusing a name that is not
// inside deploy/NNNN/ (the generator never writes one; the check keeps a mistake from
// writing outside the output directory).
func artifactFiles(files []deploy.File) ([]outputFiles, error) {
	var out []outputFiles
	for _, f := range files {
		if !deploy.Contained(f.Name, deploy.Dir) {
			return nil, fmt.Errorf("internal error: artifact %q is not inside %s/", f.Name, deploy.Dir)
		}
		out = append(out, bytesFile(f.Name, f.Data))
	}
	return out, nil
}

// predictionArtifacts are the outputs of predict --artifacts: deploy/0001/ of the
// configuration as predict read it and the prediction's summary.
func predictionArtifacts(config string, yamlText []byte, sets []string, out *simcore.Output) ([]outputFiles, error) {
	files, err := simcore.PredictionArtifacts(config, yamlText, sets, out.Summary, out.Intervals)
	if err != nil {
		return nil, err
	}
	return artifactFiles(files)
}

// recommendationArtifacts are the outputs of recommend --artifacts: deploy/NNNN/ of the
// first top recommendations.
func recommendationArtifacts(recommendationJSON []byte, top int) ([]outputFiles, error) {
	files, err := simcore.RecommendationArtifacts(recommendationJSON, top)
	if err != nil {
		return nil, err
	}
	return artifactFiles(files)
}

// checkDeployDir is checkOutputSubdir for deploy/ (outputDirs checks it again when writing).
func checkDeployDir(dir string) error {
	return checkOutputSubdir(dir, deploy.Dir, "--artifacts writes")
}

// outputDirs creates the directories between dir and an output's name (deploy/NNNN/launch
// for deploy/NNNN/launch/prefill.sh) and returns those it created, outermost first. Each
// must be a real directory: a symbolic link or a file on the way is an error.
func outputDirs(dir, name string) ([]string, error) {
	var created []string
	p := dir
	parent := path.Dir(name)
	if parent == "." {
		return nil, nil
	}
	for _, part := range splitSlash(parent) {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(p, outputDirMode); err != nil {
				return created, err
			}
			created = append(created, p)
		case err != nil:
			return created, err
		case st.Mode()&fs.ModeSymlink != 0:
			return created, errors.New(p + " is a symbolic link; outputs are written only into real directories")
		case !st.IsDir():
			return created, errors.New(p + " is not a directory; move it")
		}
	}
	return created, nil
}

func splitSlash(p string) []string {
	var parts []string
	for p != "." && p != "" {
		parts = append([]string{path.Base(p)}, parts...)
		p = path.Dir(p)
	}
	return parts
}

// staleDeployFiles lists the known files of every deploy/NNNN/ (and its launch/) in dir that
// this run does not rewrite, through real directories only: what --overwrite removes.
func staleDeployFiles(dir string, writing []string) []string {
	var stale []string
	written := map[string]bool{}
	for _, name := range writing {
		written[filepath.Join(dir, filepath.FromSlash(name))] = true
	}
	realDir := func(p string) bool {
		st, err := os.Lstat(p)
		return err == nil && st.IsDir()
	}
	files := func(p string, match *regexp.Regexp) {
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if f := filepath.Join(p, e.Name()); match.MatchString(e.Name()) && e.Type()&fs.ModeDir == 0 && !written[f] {
				stale = append(stale, f)
			}
		}
	}
	root := filepath.Join(dir, deploy.Dir)
	if !realDir(root) {
		return nil
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		n := filepath.Join(root, e.Name())
		if !deployNumber.MatchString(e.Name()) || !realDir(n) {
			continue
		}
		files(n, deployFile)
		if l := filepath.Join(n, "launch"); realDir(l) {
			files(l, launchFile)
		}
	}
	return stale
}

// removeEmptyDeployDirs removes the deploy/NNNN/launch, deploy/NNNN and deploy directories
// that --overwrite emptied (a directory that still holds anything stays).
func removeEmptyDeployDirs(dir string) {
	root := filepath.Join(dir, deploy.Dir)
	if st, err := os.Lstat(root); err != nil || !st.IsDir() {
		return
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if d := filepath.Join(root, e.Name()); deployNumber.MatchString(e.Name()) && e.IsDir() {
			os.Remove(filepath.Join(d, "launch"))
			os.Remove(d)
		}
	}
	os.Remove(root)
}

// parseArtifactsTop reads --artifacts-top: a whole number from 1 to deploy.MaxNumber.
func parseArtifactsTop(value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > deploy.MaxNumber {
		return 0, recommendErr(fmt.Sprintf("argument --artifacts-top: must be a whole number from 1 to %d, got '%s'", deploy.MaxNumber, value))
	}
	return n, nil
}
