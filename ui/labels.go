package ui

import "math"

// box is a rectangle in SVG user units.
type box struct{ x0, y0, x1, y1 float64 }

// overlap is the area two boxes share (0 when they only touch).
func (a box) overlap(b box) float64 {
	w := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
	h := math.Min(a.y1, b.y1) - math.Max(a.y0, b.y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// inside reports whether a lies within b.
func (a box) inside(b box) bool { return a.x0 >= b.x0 && a.y0 >= b.y0 && a.x1 <= b.x1 && a.y1 <= b.y1 }

// Text metrics of a label, in ems of its font size: the advance of one character (digits and
// commas of a bold sans-serif are at most 0.7 em; DejaVu Sans Bold's digits are 0.696 em) and
// the line box above and below the baseline (DejaVu Sans: ascent 0.93, descent 0.24), so the
// estimated box holds the box the browser draws.
const (
	labelCharEm    = 0.7
	labelAscentEm  = 0.95
	labelDescentEm = 0.25
)

// labelGap is the distance between a point's edge and its label on the first ring: room for
// the ring that marks a picked point (ParetoSVG).
const labelGap = 4

// labelRings is how many rings of positions around its point a label tries before it settles
// for the position that overlaps least.
const labelRings = 4

// pointLabel is a label to place next to a point: the point's centre and radius, the text.
type pointLabel struct {
	x, y, r float64
	text    string
}

// placedLabel is where a label was put: its text's start and baseline, its box, and whether
// it sits away from its point (then a leader line joins them).
type placedLabel struct {
	x, baseline float64
	box         box
	leader      bool
}

// placeLabels puts every label next to its point, in order, at the first free position of
// eight around the point (right, upper right, lower right, left, upper left, lower left,
// above, below), ring after ring further out: a position is free when its box lies within
// bounds and overlaps neither an earlier label nor any point of obstacles (their centres, of
// radius r). When no position of any ring is free, the label takes the one with the least
// overlap with earlier labels, then with points. Deterministic: the same input gives the
// same positions.
func placeLabels(labels []pointLabel, obstacles [][2]float64, r float64, bounds box, fontSize float64) []placedLabel {
	out := make([]placedLabel, 0, len(labels))
	var taken []box
	pointBox := func(p [2]float64) box { return box{p[0] - r - 1, p[1] - r - 1, p[0] + r + 1, p[1] + r + 1} }
	for _, l := range labels {
		w := fontSize * labelCharEm * float64(len([]rune(l.text)))
		h := fontSize * (labelAscentEm + labelDescentEm)
		var best placedLabel
		bestCost := math.Inf(1)
		for ring := 0; ring < labelRings && bestCost > 0; ring++ {
			d := l.r + labelGap + float64(ring)*h
			diag := d * math.Sqrt2 / 2
			// Top-left corners of the eight positions, in order of preference.
			corners := [][2]float64{
				{l.x + d, l.y - h/2}, {l.x + diag, l.y - diag - h}, {l.x + diag, l.y + diag},
				{l.x - d - w, l.y - h/2}, {l.x - diag - w, l.y - diag - h}, {l.x - diag - w, l.y + diag},
				{l.x - w/2, l.y - d - h}, {l.x - w/2, l.y + d},
			}
			for _, c := range corners {
				b := box{c[0], c[1], c[0] + w, c[1] + h}
				cost := 0.0
				if !b.inside(bounds) {
					cost += 1e9
				}
				for _, t := range taken {
					cost += 1e6 * b.overlap(t)
				}
				for _, p := range obstacles {
					cost += b.overlap(pointBox(p))
				}
				if cost < bestCost {
					bestCost = cost
					best = placedLabel{x: b.x0, baseline: b.y0 + fontSize*labelAscentEm, box: b, leader: ring > 0}
				}
				if cost == 0 {
					break
				}
			}
		}
		taken = append(taken, best.box)
		out = append(out, best)
	}
	return out
}

// nearestOnBox is the point of b closest to (x, y): where a leader line from a point meets
// its label.
func nearestOnBox(b box, x, y float64) (float64, float64) {
	return math.Min(math.Max(x, b.x0), b.x1), math.Min(math.Max(y, b.y0), b.y1)
}
