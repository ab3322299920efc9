package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Entries added to many requests in any interleaving, over several chunks of each table, read
// back per request in the order they were added; a request without entries (or past the
// last ordinal, or of a nil log) has empty lists.
func TestHistoryLogKeepsOrderPerRequest(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const requests = 3000
	want := make([]History, requests+1)
	var l HistoryLog
	for n := 0; n < 3*historyChunk; n++ {
		o := int32(rnd.IntN(requests-1) + 1) // the last ordinal never gets an entry
		h := &want[o]
		switch rnd.IntN(3) {
		case 0:
			a := Admission{At: float64(n), Pool: uint8(n % 3), Reused: n}
			l.AddAdmission(o, a)
			h.Admissions = append(h.Admissions, a)
		case 1:
			r := Route{Worker: int32(n), EnteredAt: float64(n), Overlap: n}
			l.AddRoute(o, r)
			h.Routes = append(h.Routes, r)
			if got := l.LastRoute(o); got == nil || *got != r {
				t.Fatalf("request %d: last route %v, want %v", o, got, r)
			}
		default:
			l.AddPressure(o, n)
			h.Pressure = append(h.Pressure, n)
		}
	}
	var scratch History
	for o := int32(1); o <= requests+1; o++ {
		var w History
		if int(o) < len(want) {
			w = want[o]
		}
		l.Load(o, &scratch)
		if len(scratch.Admissions)+len(w.Admissions) > 0 && !cmp.Equal(scratch.Admissions, w.Admissions) ||
			len(scratch.Routes)+len(w.Routes) > 0 && !cmp.Equal(scratch.Routes, w.Routes) ||
			len(scratch.Pressure)+len(w.Pressure) > 0 && !cmp.Equal(scratch.Pressure, w.Pressure) {
			t.Fatalf("request %d: history %+v, want %+v", o, scratch, w)
		}
	}
	if l.LastRoute(requests+5) != nil {
		t.Error("a route for an ordinal past the log")
	}
	var none *HistoryLog
	none.Load(1, &scratch)
	if len(scratch.Admissions)+len(scratch.Routes)+len(scratch.Pressure) != 0 {
		t.Errorf("nil log: %+v", scratch)
	}
}
