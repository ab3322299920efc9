package spec

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// FuzzLoadProfile: LoadProfile returns a profile or a *Error with a message, never panics;
// a profile it accepts holds parameters in their physical ranges and reads back to the same
// value once written again.
func FuzzLoadProfile(f *testing.F) {
	example, err := os.ReadFile("../../examples/calibration/profile.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(strings.Replace(string(example), `"handoff_ms": 0,`, `"handoff_ms": 0, "kv_capacity_scale": 0.5,`, 1)))
	f.Add([]byte(strings.Replace(string(example), `"handoff_ms": 0,`, `"handoff_ms": 0, "kv_capacity_scale": 2,`, 1)))
	for _, n := range []string{"32", "0", "1.5", "70000", "-3"} {
		f.Add([]byte(strings.Replace(string(example), `"handoff_ms": 0,`, `"handoff_ms": 0, "decode_max_sequences": `+n+`,`, 1)))
	}
	f.Add([]byte(`{"schema_version": 1, "program": "x", "entries": []}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, perr := LoadProfile(data)
		if (p == nil) == (perr == nil) {
			t.Fatalf("want exactly one of profile/error, got %v / %v", p, perr)
		}
		if perr != nil {
			if perr.Msg == "" {
				t.Fatalf("error without a message: %#v", perr)
			}
			return
		}
		for i, e := range p.Entries {
			if s := e.Parameters.KVCapacityScale; s != nil && (*s < MinProfileKVScale || *s > MaxProfileKVScale) {
				t.Fatalf("entries[%d]: kv_capacity_scale %g accepted outside [%g, %g]", i, *s, MinProfileKVScale, MaxProfileKVScale)
			}
			if n := e.Parameters.DecodeMaxSequences; n != nil && (*n < 1 || *n > MaxProfileDecodeSequences) {
				t.Fatalf("entries[%d]: decode_max_sequences %d accepted outside [1, %d]", i, *n, MaxProfileDecodeSequences)
			}
			if s := e.Parameters.PrefillScale; s < MinProfileScale || s > MaxProfileScale {
				t.Fatalf("entries[%d]: prefill_scale %g accepted outside its range", i, s)
			}
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, qerr := LoadProfile(b)
		if qerr != nil {
			t.Fatalf("a profile LoadProfile accepted does not read back once written: %v\n%s", qerr, b)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("the profile changed when written and read again:\n%+v\n%+v", p, q)
		}
	})
}

// A key spelled in another case is refused naming its path, though encoding/json would match
// it to the field; so is a second spelling of one key.
func TestLoadProfileKeysAreExact(t *testing.T) {
	example, err := os.ReadFile("../../examples/calibration/profile.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, perr := LoadProfile(example); perr != nil {
		t.Fatalf("the example profile: %v", perr)
	}
	for _, c := range []struct{ from, to, path string }{
		{`"prefill_scale"`, `"PREFILL_SCALE"`, "entries[0].parameters.PREFILL_SCALE"},
		{`"handoff_ms": 0,`, `"handoff_ms": 0, "Handoff_ms": 5,`, "entries[0].parameters.Handoff_ms"},
		{`"schema_version"`, `"Schema_Version"`, "Schema_Version"},
	} {
		bad := strings.Replace(string(example), c.from, c.to, 1)
		if bad == string(example) {
			t.Fatalf("%s: nothing replaced", c.from)
		}
		_, perr := LoadProfile([]byte(bad))
		if perr == nil || perr.Path != c.path {
			t.Errorf("%s → %s: %v, want a refusal at %s", c.from, c.to, perr, c.path)
		}
	}
}
