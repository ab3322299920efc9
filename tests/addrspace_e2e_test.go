package tests

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// underLimit runs the binary in dir under an address-space limit of kib KiB (ulimit -v).
func underLimit(dir string, kib int, env []string, args ...string) result {
	noteBinary()
	return runCmd(exec.Command("/bin/sh", append([]string{"-c", "ulimit -v " + strconv.Itoa(kib) + " && exec \"$0\" \"$@\"", binary}, args...)...), dir, env)
}

// Under an address-space limit (as on shared machines and containers) the host sizes its
// module instances to the room it finds: a recommendation asking for four evaluator instances
// under 6 GiB gets the result of an unlimited run, and a run that needs more memory than the
// limit leaves is refused by the memory estimate sized to that room (exit 2 naming the field
// and what fits), never a Go crash dump.
func TestAddressSpaceLimit(t *testing.T) {
	requireCore(t)
	localOut, local := recommendRun(t, nil, nil)
	if local.code != 0 {
		t.Fatal(local.stderr)
	}
	dir := t.TempDir()
	r := underLimit(dir, 6<<20, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0", "AISIMULATE_EVALUATORS=4"}, "recommend", "--stack", "dynamo",
		"--config", filepath.Join(repoRoot, "examples", "recommend-small.yaml"), "--output-dir", "out")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("recommend under 6 GiB: exit %d, stderr %q", r.code, r.stderr)
	}
	sameTree(t, readTree(t, filepath.Join(dir, "out")), readTree(t, localOut), "under 6 GiB")

	r = underLimit(dir, 2500<<10, nil, "predict", "--stack", "dynamo", "--config", filepath.Join(repoRoot, "examples", "quickstart.yaml"),
		"--set", "traffic.stop.requests=3000000", "--output-dir", "big")
	if r.code != 2 || strings.Contains(r.stderr, "goroutine") || !strings.Contains(r.stderr, "traffic.stop.requests: the run would need about 1.3 GiB of simulator memory") ||
		!strings.Contains(r.stderr, "requests fit") {
		t.Errorf("a run too large for the limit: exit %d, stderr %q", r.code, r.stderr)
	}
}
