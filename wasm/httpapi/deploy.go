package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"aisimulate/simcore/deploy"
	"aisimulate/wasm/jsapi"
)

// outputPart is one part of a multipart/mixed answer: a file name, its type and its text.
type outputPart struct{ name, ctype, text string }

// writeParts answers 200 with the files of a call: without mixed the first file alone as
// itself (inline, named by its filename); with mixed — the call asked for more than its
// main file (requests.jsonl, every output, the deployment), whether or not there are more —
// a multipart/mixed body of every file, each part named (name and filename) by its path as
// the CLI writes it under --output-dir. This is the one shape of every answer with several
// files (docs/web.md, "Edge API").
func writeParts(w http.ResponseWriter, parts []outputPart, mixed bool) {
	if !mixed {
		w.Header().Set("Content-Type", parts[0].ctype)
		w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename=%q`, parts[0].name))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, parts[0].text)
		return
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, part := range parts {
		pw, _ := mw.CreatePart(map[string][]string{
			"Content-Type":        {part.ctype},
			"Content-Disposition": {fmt.Sprintf(`attachment; name=%q; filename=%q`, part.name, part.name)},
		})
		io.WriteString(pw, part.text)
	}
	mw.Close()
	w.Header().Set("Content-Type", "multipart/mixed; boundary="+mw.Boundary())
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

// artifactsTop reads ?artifacts_top=N of /v1/recommend, recommend --artifacts-top: how many
// recommendations get deploy/NNNN/ (deploy.DefaultTop when absent, 1 to deploy.MaxNumber).
func artifactsTop(v string) (int, error) {
	if v == "" {
		return deploy.DefaultTop, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > deploy.MaxNumber {
		return 0, fmt.Errorf("artifacts_top=%q: must be a whole number from 1 to %d (recommend --artifacts-top)", v, deploy.MaxNumber)
	}
	return n, nil
}

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
