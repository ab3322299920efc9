package ui

import (
	"embed"
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
)

//go:embed presets/*.yaml
var presetFS embed.FS

// Preset is a named example configuration.
type Preset struct {
	// Name is the file name without extension.
	Name string
	// Title is the first comment line of the YAML, shown in the picker.
	Title string
	// YAML is the configuration text.
	YAML string
}

// Presets returns the built-in example configurations; the first is the default page config.
func Presets() []Preset {
	ents, _ := presetFS.ReadDir("presets")
	var out []Preset
	for _, e := range ents {
		b, err := presetFS.ReadFile("presets/" + e.Name())
		if err != nil {
			continue
		}
		text := string(b)
		title := strings.TrimSuffix(e.Name(), ".yaml")
		if first, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "#") {
			title = strings.TrimSpace(strings.TrimPrefix(first, "#"))
		}
		out = append(out, Preset{Name: strings.TrimSuffix(e.Name(), ".yaml"), Title: title, YAML: text})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// URL fragment keys: a prediction's configuration (cfg) or a recommendation's sweep (rec).
const (
	hashPrediction     = "cfg"
	hashRecommendation = "rec"
)

// EncodeHash returns the URL fragment (without '#') that carries a configuration:
// `cfg=<base64url of the YAML text>`, so a copied link reproduces the run.
func EncodeHash(yamlText string) string { return encodeHashKey(hashPrediction, yamlText) }

// DecodeHash reads a configuration from a URL fragment (with or without '#'); ok is false
// when the fragment carries none, it does not decode, or it is empty.
func DecodeHash(fragment string) (yamlText string, ok bool) {
	return decodeHashKey(hashPrediction, fragment)
}

// EncodeRecHash returns the URL fragment (without '#') that carries a recommendation sweep:
// `rec=<base64url of the recommend YAML text>`, so a shared link reopens the same sweep.
func EncodeRecHash(yamlText string) string { return encodeHashKey(hashRecommendation, yamlText) }

// DecodeRecHash reads a recommendation sweep from a URL fragment, like DecodeHash.
func DecodeRecHash(fragment string) (yamlText string, ok bool) {
	return decodeHashKey(hashRecommendation, fragment)
}

func encodeHashKey(key, text string) string {
	return key + "=" + base64.RawURLEncoding.EncodeToString([]byte(text))
}

func decodeHashKey(key, fragment string) (string, bool) {
	v, err := url.ParseQuery(strings.TrimPrefix(fragment, "#"))
	if err != nil {
		return "", false
	}
	enc := v.Get(key)
	if enc == "" {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}
