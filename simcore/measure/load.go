package measure

import (
	"math"
)

// load reads a benchmark client's load settings: the arrival rate at rateKey (requests per
// second, Infinity or "inf" for all at once) and the concurrency cap at concKey. It returns
// a closed-loop concurrency or an open-loop rate (docs/calibration.md, "Loads"):
//   - a cap with an unlimited (or unrecorded) rate is a closed loop of that many requests;
//   - a finite rate is an open loop at that rate (a cap beside it is not replayed);
//   - an unlimited rate without a cap sends every request at once: a closed loop of all
//     the completed requests.
func (o object) load(rateKey, concKey string, completed int) (conc int, rate float64, err error) {
	r, hasRate, err := o.number(rateKey, true)
	if err != nil {
		return 0, 0, err
	}
	if hasRate && r <= 0 {
		return 0, 0, o.fail(rateKey, "must be > 0, got %g", r)
	}
	if hasRate && !math.IsInf(r, 1) {
		return 0, r, nil
	}
	if o.has(concKey) {
		c, err := o.count(concKey)
		if err != nil {
			return 0, 0, err
		}
		if c > maxConcurrency {
			return 0, 0, o.fail(concKey, "%d requests in flight is more than the %d a replay supports", c, maxConcurrency)
		}
		return c, 0, nil
	}
	if hasRate && completed > 0 && completed <= maxConcurrency {
		return completed, 0, nil
	}
	return 0, 0, o.fail(concKey, "missing; the file records neither a concurrency nor a finite %s", o.key(rateKey))
}

// maxConcurrency is the largest closed-loop load a measurement may have (the replay's
// traffic.load.concurrency limit).
const maxConcurrency = 100_000
