package simcore

import (
	"bytes"
	"encoding/json"
	"fmt"

	"aisimulate/simcore/deploy"
	"aisimulate/simcore/spec"
)

// PredictionArtifacts writes the deployment of one prediction, deploy/0001/
// (docs/artifacts.md): configYAML and sets as predict read them, the prediction's summary
// and its intervals object (nil when prediction.json has none or null). configName names the
// configuration in the README.
func PredictionArtifacts(configName string, configYAML []byte, sets []string, summary, intervals map[string]any) ([]deploy.File, error) {
	cfg, err := spec.LoadConfig(configYAML, sets)
	if err != nil {
		return nil, err
	}
	return deploy.Generate(deploy.Input{Number: 1, Config: cfg, Source: configName, Summary: summary, Intervals: intervals})
}

// RecommendationArtifacts writes deploy/NNNN/ for the first top rows of a recommendation
// (recommendation.json's bytes): the rows of views.pareto_front for the pareto target,
// else of views.top_n, so deploy/NNNN/ is the deployment of recommendations/NNNN.yaml.
func RecommendationArtifacts(recommendationJSON []byte, top int) ([]deploy.File, error) {
	var doc struct {
		Candidates []struct {
			ID         string         `json:"candidate_id"`
			Config     map[string]any `json:"prediction_config"`
			Metrics    map[string]any `json:"metrics"`
			Intervals  map[string]any `json:"intervals"`
			Objectives map[string]any `json:"objectives"`
		} `json:"candidates"`
		Views struct {
			TopN        []string `json:"top_n"`
			ParetoFront []string `json:"pareto_front"`
		} `json:"views"`
		Provenance struct {
			Target string `json:"target"`
		} `json:"provenance"`
	}
	dec := json.NewDecoder(bytes.NewReader(recommendationJSON))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("recommendation.json: %v", err)
	}
	rows := doc.Views.TopN
	if len(doc.Views.ParetoFront) > 0 {
		rows = doc.Views.ParetoFront
	}
	total := len(rows)
	rows = rows[:max(0, min(top, total, deploy.MaxNumber))]
	var files []deploy.File
	for i, id := range rows {
		found := false
		for _, c := range doc.Candidates {
			if c.ID != id {
				continue
			}
			found = true
			source := fmt.Sprintf("recommendations/%04d.yaml", i+1)
			cfg, err := spec.LoadConfig(spec.EmitYAML(c.Config), nil)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %v", source, id, err)
			}
			heading := fmt.Sprintf("Recommendation %d of %d (%s, target %s)", i+1, total, id, doc.Provenance.Target)
			fs, err := deploy.Generate(deploy.Input{Number: i + 1, Config: cfg, Source: source,
				Summary: c.Metrics, Intervals: c.Intervals, Heading: heading})
			if err != nil {
				return nil, err
			}
			files = append(files, fs...)
		}
		if !found {
			return nil, fmt.Errorf("recommendation.json: view row %s is not a candidate", id)
		}
	}
	return files, nil
}
