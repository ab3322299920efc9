package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Control characters of a configuration's keys, a --set path and a remote's text are
// escaped in every message: none reaches the terminal raw (it could retitle or recolour it).
func TestMessagesEscapeControlCharacters(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("\"\\e]0;PWN\\a\": 1\n"), 0o644))
	e2, err := os.ReadFile(filepath.Join(repoRoot, "examples", "e2.yaml"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "e2.yaml"), e2, 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--stack", "dynamo", "--config", "bad.yaml"}, `\x1b]0;PWN\a`},
		{[]string{"predict", "--stack", "dynamo", "--config", "e2.yaml", "--set", "engine.\x1b[31mred=1"}, `\x1b[31mred`},
		{[]string{"recommend", "--stack", "dynamo", "--config", filepath.Join(repoRoot, "examples", "recommend-small.yaml"), "--set", "optimization.\x1b]0;PWN\a=1"}, `\x1b]0;PWN\a`},
		{[]string{"predict", "--stack", "dynamo", "--config", "no\x1b[2Jsuch.yaml"}, `no\x1b[2Jsuch.yaml`},
	} {
		r := runIn(dir, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.ContainsAny(r.stderr, "\x1b\a") {
			t.Errorf("%q: exit %d, stderr %q; want it to contain %q and no raw escape", c.args, r.code, r.stderr, c.want)
		}
	}
}
