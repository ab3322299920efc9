package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A misspelt top-level section is named with its likely meaning, through the binary, exit 2,
// nothing written (docs/config.md, "Processing order").
func TestMisspeltSectionSaysDidYouMean(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	cfg := strings.Replace(readFile(t, filepath.Join(dir, "e2.yaml")), "\ntraffic:", "\ntrafic:", 1)
	must(t, os.WriteFile(filepath.Join(dir, "typo.yaml"), []byte(cfg), 0o644))
	r := runIn(dir, nil, "predict", "--stack", "dynamo", "--config", "typo.yaml", "--output-dir", "out")
	if r.code != 2 || !strings.Contains(r.stderr, `typo.yaml: trafic: unknown top-level section "trafic"; did you mean traffic?`) {
		t.Errorf("exit %d, stderr %q; want 2 and the did-you-mean message", r.code, r.stderr)
	}
	if exists(filepath.Join(dir, "out")) {
		t.Error("an output directory was created for a bad configuration")
	}
}

// A model alias is echoed with the catalog id it resolved to in the readable table.
func TestModelAliasEchoesTheCatalogID(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	r := runIn(dir, append([]string{"AISIMULATE_TABLE=readable", "COLUMNS=120"}, fixedWall...),
		predictArgs("--set", "engine.model=someorg/Llama-3.1-8B-Instruct-FP8")...)
	want := "Deployment  meta-llama/Meta-Llama-3.1-8B (given as someorg/Llama-3.1-8B-Instruct-FP8)\n"
	if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("exit %d; readable table starts\n%s\nwant %q (stderr %s)", r.code, firstLines(r.stdout, 3), want, r.stderr)
	}
	r = runIn(dir, append([]string{"AISIMULATE_TABLE=readable", "COLUMNS=120"}, fixedWall...), predictArgs("--overwrite")...)
	if !strings.HasPrefix(r.stdout, "Deployment  meta-llama/Meta-Llama-3.1-8B\n") {
		t.Errorf("a catalog id is echoed as it is; got\n%s", firstLines(r.stdout, 3))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
