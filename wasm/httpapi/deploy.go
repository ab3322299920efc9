package httpapi

import (
	"net/http"
	"strings"

	"aisimulate/wasm/jsapi"
)

// outputPart is one part of a multipart/mixed answer: a file name, its type and its text.
type outputPart struct{ name, ctype, text string }

// deploymentParts are the files of a deployment (`?artifacts=1`, docs/artifacts.md) as
// answer parts named by their paths, deploy/0001/…; a failure is answered here (ok false).
func deploymentParts(w http.ResponseWriter, d jsapi.Deployment) (parts []outputPart, ok bool) {
	if d.Err != nil {
		status := http.StatusInternalServerError
		if d.Err.Kind == jsapi.KindConfig {
			status = http.StatusBadRequest
		}
		fail(w, status, d.Err.Path, d.Err.Message)
		return nil, false
	}
	for _, f := range d.Files {
		ctype := "text/plain; charset=utf-8"
		switch {
		case strings.HasSuffix(f.Name, ".yaml"):
			ctype = "application/yaml"
		case strings.HasSuffix(f.Name, ".md"):
			ctype = "text/markdown; charset=utf-8"
		}
		parts = append(parts, outputPart{f.Name, ctype, string(f.Data)})
	}
	return parts, true
}
