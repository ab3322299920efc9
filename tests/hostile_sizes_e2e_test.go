package tests

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Sizes that used to run out of memory late, crash with an internal error or produce
// non-finite output are refused at once through the binary: exit 2 naming the field and the
// range or the figure that fits (docs/robustness.md, "Ceilings").
func TestHostileSizesAreRefusedAtOnce(t *testing.T) {
	requireCore(t)
	quick := filepath.Join(repoRoot, "examples", "quickstart.yaml")
	e2 := filepath.Join(repoRoot, "examples", "e2.yaml")
	seed := filepath.Join(repoRoot, "examples", "recommend-seed.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--config", quick, "--set", "traffic.source.input_tokens=2147483648"},
			"traffic.source.synthetic.input_tokens: must be at most 1073741824 (tokens of one request; no model's context comes near it), got 2147483648"},
		{[]string{"predict", "--config", quick, "--set", "traffic.source.output_tokens=9223372036854775807"},
			"traffic.source.synthetic.output_tokens: must be at most 1073741824"},
		{[]string{"predict", "--config", e2, "--set", "engine.workers.aggregated.timing.prefill_ms=1.7e308"},
			"engine.workers.aggregated.timing.prefill_ms: must be at most 1000000000000 (about 31.7 years; longer times overflow the simulated clock), got 1.7e+308"},
		{[]string{"predict", "--config", e2, "--set", "traffic.load={type: poisson, requests_per_second: 5e-324}"},
			"traffic.load.requests_per_second: must be at least 1e-09"},
		{[]string{"recommend", "--config", seed, "--set", "optimization.constraints.max_candidate_gpus=1000", "--set", "optimizer.max_trials=16"},
			"optimization.constraints.max_candidate_gpus: the prefill and decode parallelism pairs within 1..1000 GPUs number 1869836, more than the 100000 one search may hold (docs/robustness.md); a max_candidate_gpus of at most 232 fits"},
	} {
		start := time.Now()
		r := runIn(t.TempDir(), nil, append(append([]string{}, c.args[0], "--stack", "dynamo"), append(c.args[1:], "--output-dir", "out")...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		// Within a second on an idle machine; the bound leaves room for a loaded CI.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%v: refused after %s", c.args, d)
		}
	}
}
