package simcore

import (
	"fmt"
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// A cluster faster than the model can make its deployment (every parameter at its physical
// floor, and the prefill and decode op sums halved below it: faster than the GPU's peak),
// measured by clients that draw their lengths, warns about each measurement's TTFT and TPOT,
// naming the floor; the same measurements given as
// constant lengths are not checked (a lockstep replay is no floor for real clients), and the
// round-trip cluster, within physics, gives no such warning either way. The profile, held at
// the floor too, misses every mean of the faster cluster by about +100 %, so Calibrate also
// warns about each ("Measurements the profile does not explain"), whatever the lengths.
func TestFloorWarnings(t *testing.T) {
	draw := spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: 0.8, MaxRatio: 1}
	held := &measure.Measurement{Concurrency: 4, ISL: 1024, OSL: 128}
	p := &measuredPoint{m: held, configName: "cluster.yaml", configYAML: []byte(roundTripConfig), sets: calibration.TrafficSets(held)}
	cfg, serr := spec.LoadConfig(p.configYAML, p.sets)
	if serr != nil {
		t.Fatal(serr)
	}
	p.cfg = cfg
	fast, err := physicalFloor(p)
	if err != nil {
		t.Fatal(err)
	}
	fast[calibration.KVCapacityScale] = 1
	fast[calibration.PrefillScale] /= 2
	fast[calibration.DecodeScale] /= 2
	for _, c := range []struct {
		name                     string
		truth                    calibration.Params
		lengths                  spec.Lengths
		wantFloor, wantUnexplain int
	}{
		{"faster than the floor, drawn lengths", fast, draw, 4, 4},
		{"faster than the floor, constant lengths", fast, spec.Lengths{}, 0, 4},
		{"within physics, drawn lengths", roundTripTruth(), draw, 0, 0},
	} {
		var files []NamedFile
		for _, conc := range []int{4, 16} {
			files = append(files, NamedFile{Name: fmt.Sprintf("c%d.json", conc), Data: clusterRunDrawn(t, roundTripConfig, c.truth, c.lengths, conc, 1024, 128)})
		}
		in := CalibrateInput{ConfigName: "cluster.yaml", ConfigYAML: []byte(roundTripConfig), Measurements: files, Lengths: c.lengths}
		ws, err := MeasurementWarnings(in)
		if err != nil {
			t.Fatal(err)
		}
		floor := 0
		for _, w := range ws {
			if strings.Contains(w, "at the physical floor") {
				floor++
			}
		}
		if floor != c.wantFloor {
			t.Errorf("%s: %d floor warnings, want %d: %q", c.name, floor, c.wantFloor, ws)
		}
		out, err := Calibrate(in)
		if err != nil {
			t.Fatal(err)
		}
		// Calibrate gives MeasurementWarnings' warnings, then those of the measurements its
		// profile misses (the profile cannot go below the floor either).
		var measured, unexplained []string
		for _, w := range out.Warnings {
			if strings.Contains(w, "the profile gives a mean") {
				unexplained = append(unexplained, w)
			} else {
				measured = append(measured, w)
			}
		}
		if strings.Join(measured, "\n") != strings.Join(ws, "\n") || !strings.HasSuffix(strings.Join(out.Warnings, "\n"), strings.Join(unexplained, "\n")) {
			t.Errorf("%s: Calibrate warns %q, MeasurementWarnings %q", c.name, out.Warnings, ws)
		}
		if len(unexplained) != c.wantUnexplain {
			t.Errorf("%s: %d warnings of measurements the profile misses, want %d: %q", c.name, len(unexplained), c.wantUnexplain, unexplained)
		}
	}
}
