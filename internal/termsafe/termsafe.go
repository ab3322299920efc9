// Package termsafe makes text from outside the program (a configuration's keys and values,
// file names, a remote worker's answers) safe to print on a terminal: control characters
// are escaped, so no such text can move the cursor, recolour or retitle the terminal
// (docs/robustness.md, "Messages").
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every control character (C0 and C1, DEL, and the Unicode format
// characters that reorder text, such as U+202E) and every invalid UTF-8 byte written as a Go
// escape (\x1b, \u202e); tab stays as it is. Text without such characters is returned
// unchanged, so ordinary messages read as before.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&15, 16))
		case unsafe(r, size):
			q := strconv.QuoteRune(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// EscapeLines is Escape for a message of several lines: each line is escaped, the newlines
// between them are kept.
func EscapeLines(s string) string {
	if !strings.Contains(s, "\n") {
		return Escape(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

// unsafe reports whether the rune r (of size bytes) must be escaped.
func unsafe(r rune, size int) bool {
	if r == utf8.RuneError && size == 1 {
		return true
	}
	if r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
