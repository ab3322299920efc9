package outputs

import (
	"sort"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
)

// RecordOrder sorts terminal requests for records: authored request_id (absent first), then
// arrival time, then ordinal (= uuid order) (docs/semantics/outputs.md §6.1).
func RecordOrder(res *replay.Result) []*engine.Outcome {
	out := make([]*engine.Outcome, 0, res.Outcomes.Len())
	for i := 0; i < res.Outcomes.Len(); i++ {
		if r := res.Outcomes.At(i); r.Status != engine.Pending {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ia, ib := lookup(res.Strings, a.RequestRef), lookup(res.Strings, b.RequestRef); ia != ib {
			return ia < ib
		}
		if a.Arrival != b.Arrival {
			return a.Arrival < b.Arrival
		}
		return a.Ordinal < b.Ordinal
	})
	return out
}

func lookup(table []string, ref int32) string {
	if ref == 0 {
		return ""
	}
	return table[ref-1]
}

// historyOf loads r's capture history into h and returns h (empty lists when the run kept
// none).
func historyOf(res *replay.Result, r *engine.Outcome, h *engine.History) *engine.History {
	res.Histories.Load(r.Ordinal, h)
	return h
}
