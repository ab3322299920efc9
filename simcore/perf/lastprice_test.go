package perf

import (
	"math"
	"testing"
)

// The remembered last prices (Default.lastDecode, Default.lastPrefill) give the very bits of
// pricing each pass afresh: the same pass asked again in a row, passes that differ in one
// argument only, the mean-context form of a decode step (activeKV 0), and the same pass
// again after each change of a factor the price includes (SetGroup, SetFamily,
// SetCorrection, and an MTP copy made after its source remembered a step priced without
// drafts). A fresh model with the same changes applied prices every pass.
func TestLastPriceChangesNoBit(t *testing.T) {
	type pass struct {
		decode bool
		a, b   int
		kv     int64
		change func(d *Default) // applied to both models before pricing; nil for none
	}
	group := func(d *Default) { g := d.g; g.Decode, g.Prefill, g.DecodeMs = 1.3, 0.9, 2.5; d.SetGroup(g) }
	family := func(d *Default) { d.SetFamily(FamilyCoef{Prefill: 1.1, Decode: 0.8}) }
	correct := func(d *Default) {
		d.SetCorrection(Correction{PrefillScaleDelta: 0.2, DecodeScaleDelta: -0.1, PrefillPassMs: 3, DecodePassMs: 1.5})
	}
	passes := []pass{
		{decode: true, a: 8, kv: 8000}, {decode: true, a: 8, kv: 8000}, {decode: true, a: 8, kv: 8001},
		{decode: true, a: 9, kv: 8001}, {decode: true, a: 9, b: 889}, {decode: true, a: 9, b: 889},
		{a: 1, b: 2048, kv: 1024}, {a: 1, b: 2048, kv: 1024}, {a: 2, b: 2048, kv: 1024}, {a: 2, b: 2049, kv: 1024},
		{a: 2, b: 2049, kv: 1025}, {decode: true, a: 9, kv: 8001},
		{decode: true, a: 9, kv: 8001, change: group}, {a: 2, b: 2049, kv: 1025},
		{a: 2, b: 2049, kv: 1025, change: family}, {decode: true, a: 9, kv: 8001},
		{decode: true, a: 9, kv: 8001, change: correct}, {a: 2, b: 2049, kv: 1025}, {a: 2, b: 2049, kv: 1025},
	}
	for _, model := range memoModels {
		newDefault := freshDefaults(t, model)
		for _, nextn := range []int{0, 2} {
			warm := newDefault()
			var changes []func(*Default)
			drafts := 0
			for i, p := range passes {
				if p.change != nil {
					p.change(warm)
					changes = append(changes, p.change)
				}
				if nextn > 0 && i == 1 {
					// warm remembers passes[0] priced without drafts; its MTP copy must price afresh.
					warm, drafts = WithMTP(warm, nextn).(*Default), nextn
				}
				fresh := newDefault()
				for _, c := range changes {
					c(fresh)
				}
				var f, w Timing = WithMTP(fresh, drafts), warm
				var want, got float64
				if p.decode {
					want, got = f.DecodeMs(p.a, p.kv, p.b, 1<<20), w.DecodeMs(p.a, p.kv, p.b, 1<<20)
				} else {
					want, got = f.PrefillMs(p.a, p.b, int(p.kv)), w.PrefillMs(p.a, p.b, int(p.kv))
				}
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, nextn %d, pass %d %+v: remembered %v, afresh %v", model, nextn, i, p, got, want)
				}
			}
		}
	}
}
