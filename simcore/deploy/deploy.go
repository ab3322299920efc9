// Package deploy turns one simulated deployment into the files that deploy it for real
// (docs/artifacts.md): a Dynamo DynamoGraphDeployment manifest, the engine launch command of
// every worker role with the backend's own flags, and a README with what was chosen, the
// predicted figures and what the simulation did not model. It is pure and deterministic: the
// same configuration and prediction give the same bytes on every target.
package deploy

import (
	"fmt"
	"path"
	"sort"

	"aisimulate/simcore/spec"
)

// Dir is the directory, relative to the output directory, that holds every deployment.
const Dir = "deploy"

// MaxNumber is the largest deployment number (NNNN has four digits).
const MaxNumber = 9999

// DefaultTop is how many recommendations get a deployment when the caller does not say
// (recommend --artifacts without --artifacts-top, the browser's download; docs/artifacts.md,
// "Decisions").
const DefaultTop = 3

// File names inside deploy/NNNN/ (docs/artifacts.md, "Files"). No name is derived from the
// configuration, so a model id with `/` or `..` never reaches a path.
const (
	ManifestName = "dynamo-graph-deployment.yaml"
	ReadmeName   = "README.md"
	launchDir    = "launch"
)

// File is one generated file: its path relative to the output directory (always under
// deploy/NNNN/) and its bytes.
type File struct {
	Name string
	Data []byte
}

// Input is one deployment to write.
type Input struct {
	// Number is the NNNN of deploy/NNNN/: the recommendation's rank, 1 for predict.
	Number int
	// Config is the concrete, validated configuration of the deployment.
	Config *spec.Config
	// Source names where the configuration is written (the --config path or
	// recommendations/NNNN.yaml), for the README.
	Source string
	// Summary is the prediction's summary object (prediction.json "summary", or a
	// recommendation candidate's "metrics").
	Summary map[string]any
	// Intervals is prediction.json's "intervals" object (a candidate's), nil when absent or null.
	Intervals map[string]any
	// Heading says what chose this deployment, e.g. "recommendation 1 of 10 (target goodput)";
	// "" for a prediction.
	Heading string
}

// DirOf is deploy/NNNN for a deployment number.
func DirOf(n int) string { return path.Join(Dir, fmt.Sprintf("%04d", n)) }

// Generate writes the files of one deployment, sorted by name.
func Generate(in Input) ([]File, error) {
	if in.Number < 1 || in.Number > MaxNumber {
		return nil, fmt.Errorf("deployment number %d is outside 1..%d", in.Number, MaxNumber)
	}
	if in.Config == nil {
		return nil, fmt.Errorf("deployment %d has no configuration", in.Number)
	}
	d := newDeployment(in)
	dir := DirOf(in.Number)
	files := []File{
		{path.Join(dir, ManifestName), d.manifest()},
		{path.Join(dir, ReadmeName), d.readme()},
	}
	for _, r := range d.roles {
		files = append(files, File{path.Join(dir, launchDir, r.name+".sh"), d.launchScript(r)})
		if d.backend == spec.BackendTRTLLM {
			files = append(files, File{path.Join(dir, launchDir, r.name+".yaml"), d.trtllmOptions(r)})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		if !Contained(f.Name, dir) {
			return nil, fmt.Errorf("internal error: artifact %q would leave %s", f.Name, dir)
		}
	}
	return files, nil
}

// Contained reports whether name is a clean, relative, slash-separated path strictly inside
// dir (no "..", no absolute path, no empty element): the check every writer of artifacts
// makes before it creates a file.
func Contained(name, dir string) bool {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name {
		return false
	}
	for _, part := range splitPath(name) {
		if part == ".." || part == "." || part == "" {
			return false
		}
	}
	return len(name) > len(dir)+1 && name[:len(dir)+1] == dir+"/"
}

func splitPath(p string) []string {
	var parts []string
	for {
		d, f := path.Split(p)
		parts = append(parts, f)
		if d == "" {
			return parts
		}
		p = d[:len(d)-1]
	}
}
