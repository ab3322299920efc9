package ui

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Chart geometry (SVG user units; the SVG scales to its container).
const (
	chartW  = 480
	chartH  = 224
	padL    = 60
	padR    = 14
	padT    = 30
	padB    = 44
	plotW   = chartW - padL - padR
	plotH   = chartH - padT - padB
	numBins = 30
)

// frame is a chart's geometry in SVG user units: its size and the padding around the plot.
type frame struct{ w, h, padL, padR, padT, padB int }

// plotW and plotH are the size of the plot inside the padding.
func (f frame) plotW() int { return f.w - f.padL - f.padR }
func (f frame) plotH() int { return f.h - f.padT - f.padB }

// stdFrame is the geometry of the Predict view's charts, drawn at 480 × 224 and scaled to
// their container.
var stdFrame = frame{chartW, chartH, padL, padR, padT, padB}

// labelRowGap is the distance between rows of marker labels: more than the 10.5 px font's
// line box, so labels on neighbouring rows do not touch.
const labelRowGap = 15

// Palette of the series colours.
var Palette = []string{"#2563eb", "#db2777", "#059669", "#d97706"}

// FormatNum renders a number compactly for axes and cards (3 significant digits, k/M).
func FormatNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimZeros(strconv.FormatFloat(v/1e9, 'f', 2, 64)) + "G"
	case a >= 1e6:
		return trimZeros(strconv.FormatFloat(v/1e6, 'f', 2, 64)) + "M"
	case a >= 1e4:
		return trimZeros(strconv.FormatFloat(v/1e3, 'f', 1, 64)) + "k"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	case a >= 1:
		return trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	case a == 0:
		return "0"
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// svgOpen starts a chart of frame f with its title; attrs (already escaped) are added to the
// <svg> tag.
func svgOpen(b *strings.Builder, f frame, title string, attrs ...string) {
	extra := ""
	for _, a := range attrs {
		extra += " " + a
	}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" class="chart" role="img" aria-label="%s"%s>`, f.w, f.h, html.EscapeString(title), extra)
	fmt.Fprintf(b, `<text x="%d" y="18" class="chart-title">%s</text>`, f.padL, html.EscapeString(title))
}

func svgEmpty(f frame, title, msg string) string {
	var b strings.Builder
	svgOpen(&b, f, title)
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="chart-empty" text-anchor="middle">%s</text></svg>`, f.w/2, f.h/2+4, html.EscapeString(msg))
	return b.String()
}

// axes draws both axes of frame f with 5 ticks each and the axis titles: xTitle under the x
// axis (e.g. "latency (ms)"), yTitle rotated along the y axis (e.g. "requests"). A count
// axis has y0 = 0 and y1 from countAxisMax, so its ticks are whole numbers.
func axes(b *strings.Builder, f frame, x0, x1, y0, y1 float64, xTitle, yTitle string) {
	pw, ph := f.plotW(), f.plotH()
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="axis"/>`, f.padL, f.padT+ph, f.padL+pw, f.padT+ph)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="axis"/>`, f.padL, f.padT, f.padL, f.padT+ph)
	for i := 0; i <= 4; i++ {
		y := float64(f.padT) + float64(ph)*float64(4-i)/4
		v := y0 + (y1-y0)*float64(i)/4
		if i > 0 {
			fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" class="grid"/>`, f.padL, y, f.padL+pw, y)
		}
		fmt.Fprintf(b, `<text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`, f.padL-5, y+3.5, FormatNum(v))
	}
	for i := 0; i <= 4; i++ {
		x := float64(f.padL) + float64(pw)*float64(i)/4
		v := x0 + (x1-x0)*float64(i)/4
		anchor := "middle"
		if i == 4 {
			anchor = "end"
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="tick" text-anchor="%s">%s</text>`, x, f.padT+ph+16, anchor, FormatNum(v))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" class="axis-title" text-anchor="middle">%s</text>`, f.padL+pw/2, f.h-8, html.EscapeString(xTitle))
	fmt.Fprintf(b, `<text x="14" y="%d" class="axis-title" text-anchor="middle" transform="rotate(-90 14 %d)">%s</text>`,
		f.padT+ph/2, f.padT+ph/2, html.EscapeString(yTitle))
}

// countAxisMax is the top of a count axis with 4 whole-number steps: 4 × the smallest step of
// 1, 2 or 5 × 10^k that reaches the maximum (so 7 → 8 with ticks 0, 2, 4, 6, 8; never 2.5).
func countAxisMax(v float64) float64 {
	need := math.Max(v, 1) / 4
	e := math.Pow(10, math.Floor(math.Log10(need)))
	for _, m := range []float64{1, 2, 5, 10} {
		if s := m * e; s >= need && s >= 1 {
			return 4 * s
		}
	}
	return 4 * math.Max(1, 10*e)
}

// niceSteps are the tick steps of a fitted axis, times a power of ten.
var niceSteps = []float64{1, 2, 2.5, 5}

// niceRange is the axis [a, a + 4·step] that holds [lo, hi]: the smallest step of 1, 2, 2.5
// or 5 × 10^k for which a, the largest multiple of the step at or below lo, reaches hi in 4
// steps, so every tick is a round number. A step of at least (hi − lo)/3 always reaches it
// (a lies less than one step below lo), and the next nice step is at most twice that, so the
// axis spans at most 8/3 of the range. An empty range is widened by 10 % of its value (1
// at 0) on each side.
func niceRange(lo, hi float64) (float64, float64) {
	if !(hi > lo) {
		d := math.Max(math.Abs(lo)*0.1, 1e-9)
		if lo == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	e := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	for {
		for _, m := range niceSteps {
			s := m * e
			a := math.Floor(lo/s) * s
			if a+4*s >= hi {
				return a, a + 4*s
			}
		}
		e *= 10
	}
}

func pct(sorted []float64, p float64) float64 {
	k := int(math.Round(float64(len(sorted)-1) * p / 100))
	return sorted[k]
}

// HistogramSVG draws the distribution of vals (ms) with p50 and p99 markers.
func HistogramSVG(title, unit string, vals []float64, color string) string {
	return HistogramWithBound(title, unit, vals, color, 0)
}

// HistogramWithBound is HistogramSVG with an SLA bound (> 0) drawn as a labelled line; the
// x range is widened to show it.
func HistogramWithBound(title, unit string, vals []float64, color string, bound float64) string {
	return HistogramCompare(title, unit, vals, nil, color, bound)
}

// HistogramCompare is HistogramWithBound with a baseline run's values (base, nil for none)
// drawn as a grey outline over the same bins, for A/B comparison; the x range and the count
// axis cover both runs.
func HistogramCompare(title, unit string, vals, base []float64, color string, bound float64) string {
	if len(vals) == 0 {
		return svgEmpty(stdFrame, title, "no samples")
	}
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	lo, hi := s[0], s[len(s)-1]
	for _, v := range base {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if bound > 0 {
		lo, hi = math.Min(lo, bound), math.Max(hi, bound*1.02)
	}
	if hi <= lo {
		hi = lo + math.Max(1, math.Abs(lo)*0.1)
		lo = math.Max(0, lo-(hi-lo))
	}
	counts := make([]int, numBins)
	for _, v := range s {
		i := int(float64(numBins) * (v - lo) / (hi - lo))
		if i >= numBins {
			i = numBins - 1
		}
		if i < 0 {
			i = 0
		}
		counts[i]++
	}
	var baseCounts []int
	if len(base) > 0 {
		baseCounts = make([]int, numBins)
		for _, v := range base {
			baseCounts[min(numBins-1, max(0, int(float64(numBins)*(v-lo)/(hi-lo))))]++
		}
	}
	cmax := 0
	for i, c := range counts {
		cmax = max(cmax, c)
		if baseCounts != nil {
			cmax = max(cmax, baseCounts[i])
		}
	}
	ymax := countAxisMax(float64(cmax))
	var b strings.Builder
	svgOpen(&b, stdFrame, title)
	axes(&b, stdFrame, lo, hi, 0, ymax, unitTitle(unit), "requests")
	bw := float64(plotW) / numBins
	for i, c := range counts {
		if c == 0 {
			continue
		}
		h := float64(plotH) * float64(c) / ymax
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" opacity="0.85"><title>%s–%s %s: %d</title></rect>`,
			float64(padL)+float64(i)*bw+0.5, float64(padT+plotH)-h, math.Max(bw-1, 0.5), h, color,
			FormatNum(lo+(hi-lo)*float64(i)/numBins), FormatNum(lo+(hi-lo)*float64(i+1)/numBins), unit, c)
	}
	if baseCounts != nil {
		var d strings.Builder
		fmt.Fprintf(&d, "M%d %d", padL, padT+plotH)
		for i, c := range baseCounts {
			y := float64(padT+plotH) - float64(plotH)*float64(c)/ymax
			fmt.Fprintf(&d, "V%.1fH%.1f", y, float64(padL)+float64(i+1)*bw)
		}
		fmt.Fprintf(&d, "V%d", padT+plotH)
		fmt.Fprintf(&b, `<path d="%s" class="baseline"/>`, d.String())
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="chart-note baseline-note" text-anchor="end">grey: previous run (n = %d)</text>`, chartW-padR, padT-2, len(base))
	}
	xOf := func(v float64) float64 { return float64(padL) + float64(plotW)*(v-lo)/(hi-lo) }
	labels := []struct {
		name, class string
		v           float64
	}{{"p50", "marker", pct(s, 50)}, {"p99", "marker", pct(s, 99)}}
	if bound > 0 {
		labels = append(labels, struct {
			name, class string
			v           float64
		}{"SLA", "bound", bound})
	}
	// Labels go on the first of three rows where they do not overlap an earlier label.
	type span struct{ x0, x1 float64 }
	var rows [3][]span
	for _, m := range labels {
		x := xOf(m.v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="%s"/>`, x, padT, x, padT+plotH, m.class)
		text := m.name + " " + FormatNum(m.v)
		w := 6.0*float64(len(text)) + 4
		anchor, x0 := "start", x+3
		if x > float64(padL+plotW)-w {
			anchor, x0 = "end", x-3-w
		}
		row := 0
		for r := range rows {
			row = r
			free := true
			for _, sp := range rows[r] {
				if x0 < sp.x1 && x0+w > sp.x0 {
					free = false
				}
			}
			if free {
				break
			}
		}
		rows[row] = append(rows[row], span{x0, x0 + w})
		tx := x + 3
		if anchor == "end" {
			tx = x - 3
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="%s-label" text-anchor="%s">%s</text>`, tx, padT+10+labelRowGap*row, m.class, anchor, text)
	}
	fmt.Fprintf(&b, `<text x="%d" y="18" class="chart-note" text-anchor="end">n = %d</text></svg>`, chartW-padR, len(s))
	return b.String()
}

// unitTitle is the x-axis title of a latency histogram: "latency (<unit>)".
func unitTitle(unit string) string { return "latency (" + unit + ")" }

// LineSVG draws step series of counts over time (ms on the x axis, shown in seconds); the x
// axis spans at least [0, xmaxMs] so charts of one run line up; yTitle names what is counted.
func LineSVG(title, yTitle string, names []string, series [][]Point, xmaxMs float64) string {
	x1, y1 := xmaxMs, 0.0
	n := 0
	for _, s := range series {
		for _, p := range s {
			x1 = math.Max(x1, p.T)
			y1 = math.Max(y1, p.V)
			n++
		}
	}
	if n == 0 {
		return svgEmpty(stdFrame, title, "no data")
	}
	if x1 <= 0 {
		x1 = 1
	}
	ymax := countAxisMax(y1)
	var b strings.Builder
	svgOpen(&b, stdFrame, title)
	axes(&b, stdFrame, 0, x1/1000, 0, ymax, "time (s)", yTitle)
	for si, s := range series {
		color := Palette[si%len(Palette)]
		var d strings.Builder
		// Downsample to at most ~2 points per pixel column, keeping each column's max.
		cols := plotW * 2
		lastCol, colMax := -1, 0.0
		emit := func(col int, v float64) {
			x := float64(padL) + float64(col)*float64(plotW)/float64(cols)
			y := float64(padT+plotH) - float64(plotH)*v/ymax
			if d.Len() == 0 {
				fmt.Fprintf(&d, "M%.1f %.1f", x, y)
			} else {
				fmt.Fprintf(&d, "H%.1fV%.1f", x, y)
			}
		}
		for _, p := range s {
			col := int(float64(cols) * p.T / x1)
			if col != lastCol && lastCol >= 0 {
				emit(lastCol, colMax)
				colMax = 0
			}
			if col != lastCol {
				colMax = p.V
			} else {
				colMax = math.Max(colMax, p.V)
			}
			lastCol = col
		}
		if lastCol >= 0 {
			emit(lastCol, colMax)
			fmt.Fprintf(&d, "H%d", padL+plotW)
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.6"/>`, d.String(), color)
		if len(names) > 1 || (len(names) == 1 && names[0] != "") {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="3" fill="%s"/><text x="%d" y="%d" class="chart-note">%s</text>`,
				chartW-padR-150+si*75, 12, color, chartW-padR-150+si*75+13, 16, html.EscapeString(names[si]))
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}
