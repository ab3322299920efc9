package jsapi

import (
	"encoding/json"
	"errors"

	"aisimulate/simcore"
	"aisimulate/simcore/deploy"
	"aisimulate/simcore/spec"
)

// Deployment is the deployment files of a prediction or a recommendation for a JavaScript
// target (docs/artifacts.md): the files of deploy/NNNN/ and one zip of them, the browser's
// download; or Err.
type Deployment struct {
	Files []deploy.File
	Zip   []byte
	Err   *Error
}

// PredictionDeployment is deploy/0001/ of a prediction: the configuration and --set
// assignments it ran with, and its prediction.json text (for the summary and intervals).
func PredictionDeployment(configName string, yamlText []byte, sets []string, predictionJSON []byte) Deployment {
	if configName == "" {
		configName = "prediction.yaml"
	}
	var doc struct {
		Summary   map[string]any `json:"summary"`
		Intervals map[string]any `json:"intervals"`
	}
	if err := json.Unmarshal(predictionJSON, &doc); err != nil || doc.Summary == nil {
		return Deployment{Err: failed("prediction.json is not a prediction: run the prediction first")}
	}
	files, err := simcore.PredictionArtifacts(configName, yamlText, sets, doc.Summary, doc.Intervals)
	return deployment(configName, files, err)
}

// RecommendationDeployment is deploy/NNNN/ of the first top rows of a recommendation
// (recommendation.json's text).
func RecommendationDeployment(recommendationJSON []byte, top int) Deployment {
	if top < 1 {
		top = deploy.DefaultTop
	}
	files, err := simcore.RecommendationArtifacts(recommendationJSON, top)
	return deployment("recommendation.json", files, err)
}

// deployment zips generated files or classifies the error.
func deployment(name string, files []deploy.File, err error) Deployment {
	if err != nil {
		var se *spec.Error
		if errors.As(err, &se) {
			msg := name + ": " + err.Error()
			return Deployment{Err: &Error{Kind: KindConfig, Path: se.Path, Msg: se.Msg, Message: msg}}
		}
		return Deployment{Err: failed(err.Error())}
	}
	z, err := deploy.Zip(files)
	if err != nil {
		return Deployment{Err: failed(err.Error())}
	}
	return Deployment{Files: files, Zip: z}
}

// failed is a KindFailed error.
func failed(msg string) *Error { return &Error{Kind: KindFailed, Msg: msg, Message: msg} }
