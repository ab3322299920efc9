package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"aisimulate/simcore"
	"aisimulate/simcore/catalog"
)

// Errors after `predict` show predict's usage line, not the top-level one.
func TestPredictErrorsShowPredictUsage(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	for _, args := range [][]string{
		{"predict", "-c", "e2.yaml"}, // no --stack dynamo
		{"predict", "--stack", "dynamo", "-c", "missing.yaml"},
		{"predict", "--stack", "dynamo", "-c", "e2.yaml", "--set", "traffic.load.concurrency=0"},
		{"predict", "--stack", "dynamo", "-c", "e2.yaml", "stray"},
	} {
		r := runCLI(t, dir, nil, nil, nil, args...)
		if r.code != ExitUsage || !strings.HasPrefix(r.stderr, predictUsage+"aisimulate: error: ") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// Before the command, the top-level usage stays.
	if r := runCLI(t, "", nil, nil, nil, "simulate"); !strings.HasPrefix(r.stderr, topUsage) {
		t.Errorf("top level: %q", r.stderr)
	}
}

// --list-models and --list-hardware print the whole catalog without a configuration.
func TestListCatalog(t *testing.T) {
	r := runCLI(t, "", nil, nil, nil, "predict", "--list-models")
	if r.code != 0 || r.stdout != strings.Join(catalog.Models(), "\n")+"\n" {
		t.Errorf("--list-models: exit %d, %d lines", r.code, strings.Count(r.stdout, "\n"))
	}
	r = runCLI(t, "", nil, nil, nil, "predict", "--list-hardware")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != len(catalog.HardwareIDs()) || !strings.Contains(r.stdout, "h200_sxm              141.0 GiB per GPU, 8 GPUs per node\n") {
		t.Errorf("--list-hardware: exit %d\n%s", r.code, r.stdout)
	}
}

// predict --help points at docs/config.md, shows an example and names the catalog.
func TestPredictHelpIsDiscoverable(t *testing.T) {
	r := runCLI(t, "", nil, nil, nil, "predict", "--help")
	for _, want := range []string{"docs/config.md", "Example:", "--list-models", "--list-hardware",
		"meta-llama/Meta-Llama-3.1-8B", "h200_sxm", "rtx_pro_6000_server"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("predict --help lacks %q", want)
		}
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if len([]rune(line)) > 92 {
			t.Errorf("help line of %d: %q", len([]rune(line)), line)
		}
	}
}

// An unknown model suggests the family's ids; only the CLI, which has a file system, also
// offers a local directory.
func TestUnknownModelSuggestions(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	t.Chdir(dir)
	var so, se strings.Builder
	Main([]string{"predict", "--stack", "dynamo", "-c", "e2.yaml", "--set", "engine.model=llama3", "--output-dir", t.TempDir()}, nil, nil, &so, &se)
	got := se.String()
	if !strings.HasSuffix(got, `aisimulate: error: e2.yaml: engine.model: unknown model "llama3"; close matches: meta-llama/Meta-Llama-3.1-405B, meta-llama/Meta-Llama-3.1-70B, meta-llama/Meta-Llama-3.1-8B, nvidia/Llama-3.1-70B-Instruct-FP8, nvidia/Llama-3_3-Nemotron-Super-49B-v1; or pass a local directory containing config.json`+"\n") {
		t.Errorf("stderr %q", got)
	}
	// A value written as a path that holds no config.json says where a relative path is read
	// from, for a relative, a .. and an absolute path alike.
	for _, model := range []string{"./models/none", "../models/none", filepath.Join(dir, "none")} {
		so.Reset()
		se.Reset()
		Main([]string{"predict", "--stack", "dynamo", "-c", "e2.yaml", "--set", "engine.model=" + model, "--output-dir", t.TempDir()}, nil, nil, &so, &se)
		if got := se.String(); !strings.Contains(got, "engine.model: unknown model ") ||
			!strings.HasSuffix(got, "; no directory with a config.json at that path (a relative path is read from the working directory, not from the configuration file's directory)\n") {
			t.Errorf("%s: stderr %q", model, got)
		}
	}
	_, err := simcore.Predict(simcore.Input{ConfigYAML: []byte(e2YAML), Sets: []string{"engine.model=llama3"}})
	if err == nil || strings.Contains(err.Error(), "directory") {
		t.Errorf("the core (browser, edge) suggests a directory: %v", err)
	}
}
