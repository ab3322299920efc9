package tests

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the module path of go.mod.
const module = "aisimulate/"

// deps lists the packages of this module that pkgs import, directly or not, when built for
// goos/goarch ("" keeps the host's), with `go list -deps`.
func deps(t *testing.T, goos, goarch string, pkgs ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)...)
	cmd.Dir = repoRoot
	cmd.Env = os.Environ()
	if goos != "" {
		cmd.Env = append(cmd.Env, "GOOS="+goos, "GOARCH="+goarch)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %v: %v", pkgs, err)
	}
	var own []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module) {
			own = append(own, p)
		}
	}
	return own
}

// The layers of docs/architecture.md ("Layers"), as the compiler sees them: the native host
// runs the module and never links the core; the browser app shows what the core computed and
// never links the simulator (its Web Worker runs core.wasm); the core never imports a target.
// A forbidden entry ending in "/" is a tree of packages, otherwise one package.
func TestLayers(t *testing.T) {
	for _, c := range []struct {
		name, why    string
		goos, goarch string
		pkgs         []string
		forbidden    []string
		// present must be listed, so a renamed package cannot make the test pass vacuously.
		present string
	}{
		{name: "host", why: "the host runs the compiled module and never imports simcore",
			pkgs: []string{"./cmd/aisimulate", "./host/..."}, present: module + "host/wire",
			forbidden: []string{module + "simcore", module + "simcore/", module + "wasm/", module + "ui"}},
		{name: "browser app", why: "the UI never links the simulator",
			goos: "js", goarch: "wasm", pkgs: []string{"./cmd/ui", "./ui/..."}, present: module + "simcore/report",
			forbidden: []string{module + "simcore", module + "simcore/internal/", module + "simcore/recommend", module + "wasm/jsapi"}},
		{name: "core", why: "the core never imports a target",
			pkgs: []string{"./simcore/..."}, present: module + "simcore/internal/replay",
			forbidden: []string{module + "wasm/", module + "host", module + "host/", module + "ui", module + "cmd/"}},
	} {
		list := deps(t, c.goos, c.goarch, c.pkgs...)
		if !slices.Contains(list, c.present) {
			t.Errorf("%s %v: go list -deps does not list %s; the test no longer sees the packages it guards", c.name, c.pkgs, c.present)
		}
		for _, p := range list {
			for _, f := range c.forbidden {
				if p == f || (strings.HasSuffix(f, "/") && strings.HasPrefix(p, f)) {
					t.Errorf("%s %v depends on %s: %s", c.name, c.pkgs, p, c.why)
				}
			}
		}
	}
}
