package termsafe

import "testing"

// Control characters (C0, C1, DEL, the bidirectional overrides) and invalid UTF-8 become Go
// escapes; ordinary text, tabs and non-ASCII letters stay as they are.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text: ok":     "plain text: ok",
		"tab\there, é ü 中文":  "tab\there, é ü 中文",
		"\x1b]0;PWN\a":       `\x1b]0;PWN\a`,
		"\x1b[31mred\x1b[0m": `\x1b[31mred\x1b[0m`,
		"a\rb\nc\x7f":        `a\rb\nc\x7f`,
		"\u009b31m":          `\u009b31m`,
		"abc\u202etxt.exe":   `abc\u202etxt.exe`,
		"bad \xff byte":      `bad \xff byte`,
		"":                   "",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := EscapeLines("line \x1b1\nline 2\a"); got != "line \\x1b1\nline 2\\a" {
		t.Errorf("EscapeLines: %q", got)
	}
}

// FuzzEscape: the result never holds a control character or invalid UTF-8, and text that
// needs no escape is returned unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b]0;x\a", "\xff\xfe", "é\u202e", "\t\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		for i, r := range out {
			if r == '\t' {
				continue
			}
			if unsafe(r, len(string(r))) || (r == 0xFFFD && out[i] != 0xEF) {
				t.Fatalf("Escape(%q) = %q holds %U", s, out, r)
			}
		}
		clean := true
		for _, r := range s {
			if r != '\t' && unsafe(r, len(string(r))) {
				clean = false
			}
		}
		if clean && out != s && !containsInvalid(s) {
			t.Fatalf("Escape(%q) = %q changed clean text", s, out)
		}
	})
}

// containsInvalid reports whether s holds invalid UTF-8.
func containsInvalid(s string) bool {
	for i, r := range s {
		if r == 0xFFFD && (len(s) < i+3 || s[i:i+3] != "\uFFFD") {
			return true
		}
	}
	return false
}
