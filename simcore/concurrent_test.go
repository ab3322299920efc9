package simcore

import (
	"bytes"
	"os"
	"sync"
	"testing"
)

// TestConcurrentPredictions runs predictions of several configurations from goroutines at
// once, as a native tool that evaluates candidates in parallel does (tools/recommendbench),
// and checks that each returns the bytes it returns alone. The configurations cover the
// three backends, the default timing model (the embedded calibration) and catalog models and
// hardware, so when this test runs first in its process (`make test` runs it alone under
// -race) it is also the concurrent first use of every lazily parsed table.
func TestConcurrentPredictions(t *testing.T) {
	// The stop rules are cut so that the test stays short under the race detector.
	runs := []struct {
		path string
		sets []string
	}{
		{"../examples/quickstart.yaml", []string{"traffic.stop.requests=60"}},
		{"../examples/stress/sglang-chunked.yaml", []string{"traffic.stop.sessions=20"}},
		{"../examples/stress/trt-poisson.yaml", []string{"traffic.stop.requests=200", "engine.workers.aggregated.timing.type=default"}},
		{"../examples/stress/disagg-kv.yaml", []string{"traffic.stop.sessions=40"}},
	}
	inputs := make([]Input, len(runs))
	for i, r := range runs {
		text, err := os.ReadFile(r.path)
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = Input{ConfigName: r.path, ConfigYAML: text, Sets: r.sets, CapturePerRequest: true, FixedWallTimeMs: new(float64)}
	}
	const copies = 2
	got := make([][]byte, len(inputs)*copies)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := Predict(inputs[i%len(inputs)])
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = append(out.PredictionJSON, out.RequestsJSONL...)
		}()
	}
	wg.Wait()
	for i, in := range inputs {
		out, err := Predict(in)
		if err != nil {
			t.Fatal(err)
		}
		want := append(out.PredictionJSON, out.RequestsJSONL...)
		for c := 0; c < copies; c++ {
			if !bytes.Equal(got[c*len(inputs)+i], want) {
				t.Errorf("%s: a concurrent prediction differs from the same prediction run alone", in.ConfigName)
			}
		}
	}
}
