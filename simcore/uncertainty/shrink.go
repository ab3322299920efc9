package uncertainty

// Sample is one residual r = ln(measured / predicted) and the measurement campaign it
// comes from.
type Sample struct {
	R        float64
	Campaign string
}

// Shrinkage is k of the shrinkage rule (Shrunk): a group whose residuals come from m
// campaigns keeps weight m / (m + k) and takes the rest from its parent. k = 3 was chosen by
// the held-out coverage it gives (docs/uncertainty.md, "Choosing the estimator").
const Shrinkage = 3

// CampaignWeighted is the distribution of the samples in which every campaign weighs the
// same and its samples share its weight equally: the errors of one campaign are correlated
// (one lab, one build, one driver), so a new deployment is one more campaign, not one more
// row (docs/uncertainty.md).
func CampaignWeighted(samples []Sample) Dist {
	per := map[string]int{}
	for _, s := range samples {
		per[s.Campaign]++
	}
	d := make(Dist, len(samples))
	for i, s := range samples {
		d[i] = Weighted{R: s.R, W: 1 / float64(len(per)*per[s.Campaign])}
	}
	return d
}

// Campaigns is the number of distinct campaigns among the samples.
func Campaigns(samples []Sample) int {
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.Campaign] = true
	}
	return len(seen)
}

// Shrunk is a group's residual distribution shrunk toward its parent's: the mixture of the
// group's own campaign-weighted residuals, weight w = m / (m + Shrinkage) for m campaigns,
// and the parent distribution, weight 1 − w. A group with no residuals is its parent; one
// measured in many campaigns is nearly its own. This is the fallback rule for groups with
// few residuals: their band widens or narrows toward the parent's instead of being dropped.
func Shrunk(own []Sample, parent Dist) Dist {
	if len(own) == 0 {
		return parent
	}
	m := float64(Campaigns(own))
	w := m / (m + Shrinkage)
	d := make(Dist, 0, len(own)+len(parent))
	for _, x := range CampaignWeighted(own) {
		d = append(d, Weighted{R: x.R, W: w * x.W})
	}
	var total float64
	for _, x := range parent {
		total += x.W
	}
	for _, x := range parent {
		d = append(d, Weighted{R: x.R, W: (1 - w) * x.W / total})
	}
	return d
}
