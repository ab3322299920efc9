package simcore

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of simcore/testdata")

// wantGolden compares a whole output with its golden file, or rewrites the file under -update.
func wantGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update rewrites it):\n%s", golden, t.Name(), got)
	}
}
