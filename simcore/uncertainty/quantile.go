package uncertainty

import "sort"

// Weighted is one residual and its weight in a distribution.
type Weighted struct{ R, W float64 }

// Dist is a weighted empirical distribution of residuals. Its weights need not sum to one.
type Dist []Weighted

// Quantile is the weighted type-1 quantile: the smallest residual whose cumulative weight
// (residuals in ascending order) reaches p of the total weight. It is 0 for an empty
// distribution. Ties are ordered by weight so the result never depends on input order.
func (d Dist) Quantile(p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := append(Dist(nil), d...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].R != s[j].R {
			return s[i].R < s[j].R
		}
		return s[i].W < s[j].W
	})
	var total float64
	for _, x := range s {
		total += x.W
	}
	target, cum := p*total, 0.0
	for _, x := range s {
		cum += x.W
		// A relative tolerance keeps a cumulative sum that should equal the target exactly
		// (weights 1/3 + 1/3 + …) from stepping one residual too far by rounding.
		if cum >= target*(1-1e-12) {
			return x.R
		}
	}
	return s[len(s)-1].R
}

// Band is the distribution's 80 % band (its 10th and 90th percentiles), recording n as the
// number of residuals it was estimated from.
func (d Dist) Band(n int) Band { return Band{P10: d.Quantile(0.1), P90: d.Quantile(0.9), N: n} }
