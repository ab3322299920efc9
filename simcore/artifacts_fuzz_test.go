package simcore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"aisimulate/simcore/deploy"
)

// FuzzRecommendationArtifacts: whatever recommendation.json text and count a caller passes
// (the browser's and the edge's scripting API accept any), RecommendationArtifacts returns an
// error or files that all lie in deploy/NNNN/ with NNNN ≤ the count; it never panics.
// Seeds: the recommend-small golden and hostile shapes (testdata/fuzz/FuzzRecommendationArtifacts).
func FuzzRecommendationArtifacts(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("..", "tests", "testdata", "recommend-small", "recommendation.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden, 3)
	f.Add(golden, 1<<30)
	f.Add([]byte(`{"candidates":[{"candidate_id":"a","prediction_config":{"engine":{"model":"../../x","hardware":"h200_sxm","workers":{"aggregated":{}}}},"metrics":{}}],"views":{"top_n":["a"]}}`), 1)
	f.Add([]byte(`{"views":{"top_n":["missing"]}}`), 2)
	f.Add([]byte(`[]`), 0)
	f.Fuzz(func(t *testing.T, doc []byte, top int) {
		files, err := RecommendationArtifacts(doc, top)
		if err != nil {
			return
		}
		for _, fl := range files {
			if !deploy.Contained(fl.Name, deploy.Dir) || !strings.HasPrefix(fl.Name, deploy.Dir+"/") {
				t.Fatalf("file %q outside deploy/", fl.Name)
			}
			n, err := strconv.Atoi(fl.Name[len(deploy.Dir)+1 : len(deploy.Dir)+5])
			if err != nil || n < 1 || n > max(top, 0) {
				t.Fatalf("file %q for count %d", fl.Name, top)
			}
		}
	})
}
