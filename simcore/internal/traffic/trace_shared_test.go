package traffic

import (
	"io/fs"
	"os"
	"runtime"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/spec"
)

// sharedTraces is the shared data directory beside the clone (../shared/traces from the repo
// root); tests using it skip when it is absent.
const sharedTraces = "../../../shared/traces"

func sharedFS(tb testing.TB, name string) fs.FS {
	tb.Helper()
	if _, err := os.Stat(sharedTraces + "/" + name); err != nil {
		tb.Skipf("shared trace %s not available: %v", name, err)
	}
	return os.DirFS(sharedTraces)
}

func TestSharedMooncakeTraces(t *testing.T) {
	for _, tc := range []struct {
		name     string
		requests int
		lastMs   float64
	}{
		{"conversation_trace.jsonl", 12031, 3536999},
		{"synthetic_trace.jsonl", 3993, 1022025},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := sharedFS(t, tc.name)
			w := trLoad(t, trSrc(spec.FormatMooncake, tc.name), trTS(1), files)
			ss := trDrain(t, w)
			if len(ss) != tc.requests || trRequests(ss) != tc.requests {
				t.Fatalf("sessions %d, requests %d, want %d", len(ss), trRequests(ss), tc.requests)
			}
			maxA := 0.0
			for _, s := range ss {
				tr := s.Turns[0]
				if trLen(tr.Prompt) != tr.InputLength || tr.InputLength <= 0 {
					t.Fatalf("session %s: prompt %d tokens, input %d", s.ID, trLen(tr.Prompt), tr.InputLength)
				}
				if s.ArrivalMs > maxA {
					maxA = s.ArrivalMs
				}
			}
			if ss[0].ArrivalMs != 0 || maxA != tc.lastMs {
				t.Fatalf("arrivals from %v to %v, want 0 to %v", ss[0].ArrivalMs, maxA, tc.lastMs)
			}
		})
	}
}

func TestSharedAppliedComputeSamples(t *testing.T) {
	for _, tc := range []struct {
		name               string
		sessions, requests int
	}{
		{"applied_compute_lovable.sample.jsonl", 8, 14},
		{"applied_compute_office_work_8k.sample.jsonl", 3, 59},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := sharedFS(t, tc.name)
			ss := trDrain(t, trLoad(t, trSrc(spec.FormatAppliedComputeAgentic, tc.name), trConc(2), files))
			if len(ss) != tc.sessions || trRequests(ss) != tc.requests {
				t.Fatalf("sessions %d, requests %d, want %d, %d", len(ss), trRequests(ss), tc.sessions, tc.requests)
			}
			for _, s := range ss {
				for k, tr := range s.Turns {
					if trLen(tr.Prompt) != tr.InputLength {
						t.Fatalf("%s turn %d: prompt %d tokens, input %d", s.ID, k, trLen(tr.Prompt), tr.InputLength)
					}
					if k > 0 && tr.InputLength < s.Turns[k-1].InputLength {
						t.Fatalf("%s turn %d: context shrank", s.ID, k)
					}
				}
			}
		})
	}
}

// BenchmarkLoadConversationTrace loads the 12,031-request Mooncake conversation trace and
// reports the heap it keeps (the workload) as retained-MB.
func BenchmarkLoadConversationTrace(b *testing.B) {
	const name = "conversation_trace.jsonl"
	files := sharedFS(b, name)
	data, err := fs.ReadFile(files, name)
	if err != nil {
		b.Fatal(err)
	}
	mem := fstest.MapFS{name: {Data: data}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var retained float64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		if i == 0 {
			runtime.GC()
			runtime.ReadMemStats(&before)
		}
		w, err := LoadTrace(trSrc(spec.FormatMooncake, name), trTS(1), mem)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			runtime.GC()
			runtime.ReadMemStats(&after)
			retained = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
			runtime.KeepAlive(w)
		}
	}
	b.ReportMetric(retained, "retained-MB")
}
