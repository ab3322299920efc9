package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// overloadSentence is the saturation sentence of examples/overload.yaml (docs/semantics/outputs.md
// §3.4, S1).
const overloadSentence = "Overloaded: offered 250 req/s, served 200 req/s; the queue was still growing at the last arrival (2 waiting)."

// The overloaded example through the binary: prediction.json is the core's golden file with its
// saturation section, the AIPerf table carries the sentence after its border (golden
// tests/testdata/overload.table.txt) and the readable table on its Load line.
func TestOverloadSaysSoInEveryTable(t *testing.T) {
	requireCore(t)
	out := t.TempDir()
	examples := filepath.Join(repoRoot, "examples")
	r := runIn(examples, fixedWall, "predict", "--stack", "dynamo", "--config", "overload.yaml", "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := strings.ReplaceAll(readFile(t, "testdata/overload.table.txt"), "OUTPUT_DIR", out)
	if r.stdout != want {
		t.Errorf("table stdout:\n%s\nwant (docs/semantics/outputs.md §7.2):\n%s", r.stdout, want)
	}
	if got, want := readFile(t, filepath.Join(out, "prediction.json")), readFile(t, "../simcore/testdata/overload_prediction.json"); got != want {
		t.Errorf("prediction.json differs from the golden file of S1:\n%s", got)
	}
	r = runIn(examples, append([]string{"AISIMULATE_TABLE=readable", "COLUMNS=200"}, fixedWall...),
		"predict", "--stack", "dynamo", "--config", "overload.yaml", "--output-dir", out, "--overwrite")
	if r.code != 0 || !strings.Contains(r.stdout, "\nLoad        "+overloadSentence+"\n") {
		t.Errorf("readable table (exit %d) lacks the Load line:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
