package report

import (
	"strings"
	"testing"
)

func TestParseDetailSections(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"time,summary", "summary,time", ""},
		{" memory , memory", "memory", ""},
		{"all", "summary,memory,time,energy,source", ""},
		{"source,all", "summary,memory,time,energy,source", ""},
		{"summary,power", "", "invalid section 'power' (choose from summary, memory, time, energy, source, all)"},
		{"", "", "invalid section '' (choose from summary, memory, time, energy, source, all)"},
	} {
		got, err := ParseDetailSections(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("%q: %v %v, want %s", c.in, got, err, c.want)
		}
	}
	if got := MergeDetailSections([]string{"source"}, []string{"energy", "summary"}); strings.Join(got, ",") != "summary,energy,source" {
		t.Errorf("MergeDetailSections = %v", got)
	}
}
