package spec

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzLoadRecommendation: LoadRecommendation returns a recommendation or a *Error, never
// panics; every candidate made of each domain's first value emits YAML that reads back to
// the same tree.
func FuzzLoadRecommendation(f *testing.F) {
	f.Add([]byte(recYAML))
	f.Add([]byte(aggRecYAML))
	f.Add([]byte(aggRecYAML + "router: {policy: {choices: [round_robin, kv_router]}, temperature: {range: {min: 0.1, max: 1.0, scale: log}}}\n"))
	f.Add([]byte(aggRecYAML + "traffic: {source: {type: synthetic}, load: {type: concurrency, concurrency: {range: {min: 1, max: 9, step: 2}}}, stop: {requests: 4}}\n"))
	f.Add([]byte("optimization: {target: pareto}\nengine: {model: m, hardware: auto, workers: {aggregated: {parallelism: {preset: [{replicas: 1}]}}}}\n"))
	f.Add([]byte(aggRecYAML + "evaluation: {sla: {ttft_ms: 100, itl_ms: 10}}\nplanner: {scaling_policy: {preset: [load_180_5, hybrid_600_5, {enable_throughput_scaling: false, enable_load_scaling: true, throughput_adjustment_interval_seconds: 60, load_adjustment_interval_seconds: 10}]}, fpm_sampling: {preset: false}, max_num_fpm_samples: {choices: [16, 32]}, load_predictor: {preset: false, type: {choices: [kalman]}}}\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := LoadRecommendation(data, nil)
		if (r == nil) == (err == nil) {
			t.Fatalf("want exactly one of recommendation/error, got %v / %v", r, err)
		}
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || se.Msg == "" {
				t.Fatalf("error %T %v is not a *spec.Error with a message", err, err)
			}
			return
		}
		var paths []string
		var values []any
		for _, d := range r.Domains {
			paths = append(paths, d.Path)
			if d.Kind == DomainChoices {
				values = append(values, d.Choices[0])
			} else {
				values = append(values, NumberValue(d.Max, d.Int))
			}
		}
		cand := r.Candidate(paths, values)
		back, perr := parseYAML(EmitYAML(cand))
		if perr != nil || !reflect.DeepEqual(back, any(cand)) {
			t.Fatalf("candidate YAML does not read back: %v\n%s", perr, EmitYAML(cand))
		}
	})
}
