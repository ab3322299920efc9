package report

// Headline is what the docs embed (static/embed.js) shows of a prediction, built here so the
// embed spells no summary key and applies no rule of its own: the embed cards the summary
// has, with their values and bands in the unit shown (Card.Show: seconds from 10 s); the SLA
// cards when an SLA is set (Overview.SLAShares); and the deployment line (Deployment.Text).
type Headline struct {
	Cards      []ShownCard `json:"cards"`
	SLA        []SLAShare  `json:"sla"`
	Deployment string      `json:"deployment"`
}

// NewHeadline builds the headline of a prediction from its summary and overview (nil: no SLA
// cards and no deployment line).
func NewHeadline(summary map[string]any, ov *Overview) Headline {
	lookup := func(key string) (float64, bool) {
		v, ok := summary[key]
		if !ok {
			return 0, false
		}
		return Number(v)
	}
	h := Headline{Cards: []ShownCard{}, SLA: []SLAShare{}}
	for _, c := range Cards {
		v, ok := lookup(c.Key)
		if !c.Embed || !ok {
			continue
		}
		var band *[2]float64
		if ov != nil {
			if lo, hi, ok := IntervalOf(ov.Intervals, c.Key); ok {
				band = &[2]float64{lo, hi}
			}
		}
		h.Cards = append(h.Cards, c.Show(v, band))
	}
	if ov != nil {
		if ov.SLA != nil {
			h.SLA = append(h.SLA, ov.SLAShares(lookup)...)
		}
		h.Deployment = ov.Deployment.Text()
	}
	return h
}
