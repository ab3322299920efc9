package ui

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"aisimulate/wasm/jsapi/recview"
)

// Axis titles of the Pareto chart: recommend's objectives throughput_per_gpu
// (output_throughput_tok_s / average GPUs) and throughput_per_user
// (mean_output_token_throughput_per_user), docs/recommend.md "Scoring and ranking".
const (
	paretoXTitle = "throughput_per_gpu (output tok/s per GPU)"
	paretoYTitle = "throughput_per_user (tok/s)"
)

// Geometry of the Pareto chart. It is drawn at the width of its box, so it is shown at scale
// 1 and its text at the CSS sizes of static/style.css (.pareto): 12 px ticks, notes and axis
// titles, 13 px title, 11 px rank labels — readable on a phone (docs/web.md, "Recommend").
// Its width is clamped to [paretoMinW, paretoMaxW] (the box's max-width in the CSS).
const (
	paretoMinW     = 280
	paretoMaxW     = 720
	paretoH        = 300
	paretoPointR   = 5
	paretoRankFont = 11
	// paretoNoteFont and paretoTitleFont size the legend and the title, for laying them out.
	paretoNoteFont  = 12
	paretoTitleFont = 13
	// paretoPad is the share of the data's range added on each side before the axis is
	// rounded, so no point sits on an axis.
	paretoPad = 0.05
)

// Legend geometry: a 4-unit dot, 7 units to its text, 14 units between the two entries.
const (
	legendDot  = 4
	legendText = 7
	legendGap  = 14
)

// paretoFrame is the chart's geometry at width (CSS px of its box): the legend shares the
// title's row when both fit, else it takes a row of its own under it.
func paretoFrame(width float64) (f frame, legendRow int) {
	w := int(math.Round(math.Min(math.Max(width, paretoMinW), paretoMaxW)))
	f = frame{w: w, h: paretoH, padL: 62, padR: 16, padT: 36, padB: 48}
	titleW := float64(f.padL) + textWidth("Simulated candidates", paretoTitleFont, boldEm)
	if titleW+legendGap+legendWidth() > float64(w-f.padR) {
		f.padT += 18
		f.h += 18
		return f, 1
	}
	return f, 0
}

// Average advance of a character of a sans-serif font, in ems: regular and bold text
// (DejaVu Sans, the widest of the common defaults: about 0.55 and 0.65).
const (
	regularEm = 0.6
	boldEm    = 0.7
)

// textWidth estimates the advance of text in a font of size font whose characters average em
// ems.
func textWidth(text string, font, em float64) float64 { return em * font * float64(len([]rune(text))) }

// legendWidth is the width of the legend: both entries and the gap between them.
func legendWidth() float64 {
	return 2*(2*legendDot+legendText) + textWidth("feasible", paretoNoteFont, regularEm) + legendGap + textWidth("infeasible", paretoNoteFont, regularEm)
}

// paretoAxis is one axis of the chart fitted to values: the data range widened by paretoPad
// on each side (not below 0 when no value is), rounded by niceRange.
func paretoAxis(vals []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	pad := paretoPad * (hi - lo)
	a, b := lo-pad, hi+pad
	if lo >= 0 && a < 0 {
		a = 0
	}
	return niceRange(a, b)
}

// ParetoSVG draws every simulated candidate at (throughput_per_gpu, throughput_per_user),
// the chart width units wide (the CSS width of its box): feasible candidates as filled dots,
// infeasible ones (SLA or goodput constraint) as hollow rings, picked ones (the compared
// deployments) with an outer ring. Both axes fit the data (paretoAxis) and are written on
// the SVG as data-x0, data-x1, data-y0 and data-y1. Ranked points carry their rank, placed
// so that no two labels overlap (placeLabels); points at one position share a label ("2,3").
// Every point carries data-candidate (the page opens that candidate as a prediction on
// click) and a <title> with its configuration summary.
func ParetoSVG(v *recview.View, width float64, picked []string) string {
	const title = "Simulated candidates"
	f, legendRow := paretoFrame(width)
	var pts []recview.Point
	var xs, ys []float64
	for _, p := range v.Points {
		if p.X != nil && p.Y != nil {
			pts = append(pts, p)
			xs, ys = append(xs, *p.X), append(ys, *p.Y)
		}
	}
	if len(pts) == 0 {
		return svgEmpty(f, title, "no simulated candidate")
	}
	x0, x1 := paretoAxis(xs)
	y0, y1 := paretoAxis(ys)
	pw, ph := float64(f.plotW()), float64(f.plotH())
	pos := func(p recview.Point) (float64, float64) {
		return float64(f.padL) + pw*(*p.X-x0)/(x1-x0), float64(f.padT) + ph - ph*(*p.Y-y0)/(y1-y0)
	}
	var b strings.Builder
	svgOpen(&b, f, title, fmt.Sprintf(`data-x0="%g" data-x1="%g" data-y0="%g" data-y1="%g"`, x0, x1, y0, y1))
	axes(&b, f, x0, x1, y0, y1, paretoXTitle, paretoYTitle)

	// The rank labels: one per position, its ranks in order, placed before anything is drawn
	// so leader lines go under the points.
	obstacles := make([][2]float64, len(pts))
	ranks := map[[2]float64][]int{}
	var order [][2]float64
	for i, p := range pts {
		cx, cy := pos(p)
		at := [2]float64{math.Round(cx*10) / 10, math.Round(cy*10) / 10}
		obstacles[i] = at
		if p.Rank > 0 {
			if ranks[at] == nil {
				order = append(order, at)
			}
			ranks[at] = append(ranks[at], p.Rank)
		}
	}
	for _, at := range order {
		sort.Ints(ranks[at])
	}
	sort.SliceStable(order, func(i, j int) bool { return ranks[order[i]][0] < ranks[order[j]][0] })
	labels := make([]pointLabel, len(order))
	for i, at := range order {
		text := make([]string, len(ranks[at]))
		for j, r := range ranks[at] {
			text[j] = strconv.Itoa(r)
		}
		labels[i] = pointLabel{x: at[0], y: at[1], r: paretoPointR, text: strings.Join(text, ",")}
	}
	bounds := box{float64(f.padL) + 2, float64(f.padT) - 4, float64(f.w) - 2, float64(f.padT) + ph - 2}
	placed := placeLabels(labels, obstacles, paretoPointR, bounds, paretoRankFont)
	for i, pl := range placed {
		if pl.leader {
			lx, ly := nearestOnBox(pl.box, labels[i].x, labels[i].y)
			fmt.Fprintf(&b, `<line class="pt-leader" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, labels[i].x, labels[i].y, lx, ly)
		}
	}

	isPicked := map[string]bool{}
	for _, id := range picked {
		isPicked[id] = true
	}
	// Infeasible first, so feasible dots are drawn on top.
	for _, feasible := range []bool{false, true} {
		for _, p := range pts {
			if p.Feasible != feasible {
				continue
			}
			cx, cy := pos(p)
			if isPicked[p.CandidateID] {
				fmt.Fprintf(&b, `<circle class="pick-ring" cx="%.1f" cy="%.1f" r="%d"/>`, cx, cy, paretoPointR+3)
			}
			class, style := "pt infeasible", fmt.Sprintf(`fill="none" stroke="%s" stroke-width="1.6"`, Palette[1])
			if feasible {
				class, style = "pt feasible", fmt.Sprintf(`fill="%s" stroke="#fff" stroke-width="1"`, Palette[0])
			}
			tip := p.CandidateID + " (" + p.Status + ")"
			if p.Rank > 0 {
				tip = "#" + fmt.Sprint(p.Rank) + " " + tip
			}
			tip += "\n" + p.Summary + " · " + countText(p.UsedGPUs, "GPU") + "\n" + FormatNum(*p.X) + " tok/s per GPU, " + FormatNum(*p.Y) + " tok/s per user"
			fmt.Fprintf(&b, `<circle class="%s" data-candidate="%s" data-feasible="%t" cx="%.1f" cy="%.1f" r="%d" %s><title>%s</title></circle>`,
				class, html.EscapeString(p.CandidateID), feasible, cx, cy, paretoPointR, style, html.EscapeString(tip))
		}
	}
	for i, pl := range placed {
		fmt.Fprintf(&b, `<text class="pt-rank" x="%.1f" y="%.1f">%s</text>`, pl.x, pl.baseline, labels[i].text)
	}

	// The legend, right-aligned on the title's row or on its own row under it.
	ly := 18 + 18*legendRow
	x := float64(f.w-f.padR) - legendWidth()
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="%d" fill="%s"/><text x="%.1f" y="%d" class="chart-note">feasible</text>`,
		x+legendDot, ly-4, legendDot, Palette[0], x+2*legendDot+legendText, ly)
	x += 2*legendDot + legendText + textWidth("feasible", paretoNoteFont, regularEm) + legendGap
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="%d" fill="none" stroke="%s" stroke-width="1.6"/><text x="%.1f" y="%d" class="chart-note">infeasible</text>`,
		x+legendDot, ly-4, legendDot, Palette[1], x+2*legendDot+legendText, ly)
	b.WriteString(`</svg>`)
	return b.String()
}
