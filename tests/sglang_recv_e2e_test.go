package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// scheduler.recv_interval (SGLang's --scheduler-recv-interval) through the binary: refused on
// another backend with exit 2, its path and the fix, nothing written; accepted on SGLang.
func TestRecvIntervalThroughTheBinary(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	r := runIn(dir, nil, predictArgs("--set", "engine.workers.aggregated.scheduler.recv_interval=30", "--output-dir", "out")...)
	want := "engine.workers.aggregated.scheduler.recv_interval: workers.aggregated.scheduler.recv_interval is supported only for backend=sglang; remove it"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("vLLM: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	if exists(filepath.Join(dir, "out")) {
		t.Error("an output directory was created for a refused configuration")
	}
	r = runIn(dir, fixedWall, predictArgs("--set", "engine.backend=sglang", "--set", "engine.workers.aggregated.kv_cache.block_size=1",
		"--set", "engine.workers.aggregated.scheduler.recv_interval=30", "--format", "json", "--output-dir", "sgl")...)
	if r.code != 0 || !strings.Contains(r.stdout, `"completed_requests":6`) {
		t.Errorf("SGLang: exit %d, stdout %q, stderr %q; want 0 and 6 completed requests", r.code, r.stdout, r.stderr)
	}
}
