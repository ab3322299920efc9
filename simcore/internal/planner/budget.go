package planner

// floorDiv is ⌊a/b⌋ for b > 0 (rounding towards −∞ also for negative a).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// ClampSingle applies the GPU budget to one pool (docs/semantics/simulation.md §13.6): at most
// ⌊maxGPUs/g⌋ workers (maxGPUs < 0 = unlimited), then at least minWorkers, then, when
// minGPUs > 0 and the pool holds fewer GPUs, grown by the ceiling of the scale minGPUs/total.
func ClampSingle(desired, g, maxGPUs, minGPUs, minWorkers int) int {
	g = max(g, 1)
	if maxGPUs >= 0 {
		desired = min(desired, maxGPUs/g)
	}
	desired = max(desired, minWorkers)
	if total := desired * g; minGPUs > 0 && total < minGPUs {
		if total == 0 {
			desired = ceilDiv(minGPUs, g)
		} else {
			desired = ceilDiv(desired*minGPUs, total)
		}
	}
	return desired
}

// ClampPair applies the GPU budget to the disaggregated pair (docs/semantics/simulation.md §13.6): when
// p·gp + d·gd exceeds maxGPUs (≥ 0), s = max/total, p' = max(pmin, min(⌊(max − dmin·gd)/gp⌋,
// ⌊p·s⌋)), d' = max(dmin, ⌊(max − p'·gp)/gd⌋); then, when minGPUs > 0 and the pair holds
// fewer GPUs, both grow by the ceiling of the same scale minGPUs/total. The floors and
// ceilings are taken on exact integer ratios.
func ClampPair(p, d, gp, gd, maxGPUs, minGPUs, pmin, dmin int) (int, int) {
	gp, gd = max(gp, 1), max(gd, 1)
	p, d = max(p, pmin), max(d, dmin)
	if total := p*gp + d*gd; maxGPUs >= 0 && total > maxGPUs {
		np := max(pmin, min(floorDiv(maxGPUs-dmin*gd, gp), floorDiv(p*maxGPUs, total)))
		nd := max(dmin, floorDiv(maxGPUs-np*gp, gd))
		p, d = np, nd
	}
	if total := p*gp + d*gd; minGPUs > 0 && total < minGPUs {
		if total == 0 {
			p, d = ceilDiv(minGPUs, gp+gd), ceilDiv(minGPUs, gp+gd)
		} else {
			p, d = ceilDiv(p*minGPUs, total), ceilDiv(d*minGPUs, total)
		}
	}
	return p, d
}
