package spec

import (
	"strings"
	"testing"
)

// Deeply nested text is refused before parsing; real nesting and brackets in quotes and
// comments are not counted against the limit.
func TestConfigNesting(t *testing.T) {
	deep := strings.Repeat("{a: ", 5000) + "1" + strings.Repeat("}", 5000)
	err := checkInput([]byte("traffic:\n  x: "+deep), nil)
	if err == nil || !strings.Contains(err.Error(), "line 2 nests collections more than 100 levels deep") {
		t.Errorf("flow nesting: %v", err)
	}
	if err := checkInput([]byte(strings.Repeat("- ", 101)+"x\n"), nil); err == nil {
		t.Errorf("dash nesting accepted")
	}
	ok := "a: {b: [1, {c: 2}]}\n# " + strings.Repeat("[", 500) + "\nd: '" + strings.Repeat("{", 500) + "'\ne: \"\\\"" + strings.Repeat("[", 500) + "\"\n- - x\n"
	if err := checkInput([]byte(ok), nil); err != nil {
		t.Errorf("legitimate text refused: %v", err)
	}
	if err := checkInput(make([]byte, MaxConfigBytes+1), nil); err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("size: %v", err)
	}
	if err := checkInput([]byte(ok), []string{"engine.model=" + deep}); err == nil || !strings.Contains(err.Error(), "--set") {
		t.Errorf("--set nesting: %v", err)
	}
}

// Both loaders enforce the limits themselves, so no caller has to check the text first: an
// oversized or deeply nested text, or a deeply nested --set value, is a *Error from
// LoadConfig and from LoadRecommendation alike.
func TestLoadersGuardTheirInput(t *testing.T) {
	deep := strings.Repeat("[", 200)
	big := "# " + strings.Repeat("x", MaxConfigBytes) + "\nengine: {}\n"
	cases := []struct {
		name, text string
		sets       []string
		want       string
	}{
		{"nested text", "engine: " + deep, nil, "line 1 nests collections more than 100 levels deep"},
		{"nested --set", "engine: {}\n", []string{"engine.model=" + deep}, "--set"},
		{"large text", big, nil, "larger than 1048576 bytes"},
	}
	for _, c := range cases {
		for _, loader := range []struct {
			name string
			load func([]byte, []string) error
		}{
			{"LoadConfig", func(b []byte, s []string) error { _, err := LoadConfig(b, s); return err }},
			{"LoadRecommendation", func(b []byte, s []string) error { _, err := LoadRecommendation(b, s); return err }},
		} {
			err := loader.load([]byte(c.text), c.sets)
			if e, ok := err.(*Error); !ok || e.Path != "" || !strings.Contains(e.Msg, c.want) {
				t.Errorf("%s, %s: %v, want a whole-file *Error containing %q", loader.name, c.name, err, c.want)
			}
		}
	}
}
