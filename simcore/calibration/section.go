package calibration

import (
	"aisimulate/simcore/spec"
	"aisimulate/simcore/uncertainty"
)

// Keys of prediction.json's calibration section.
const (
	keyProfiles     = "profiles"
	keyFile         = "file"
	keySHA256       = "sha256"
	keyRoles        = "roles"
	keyProfile      = "profile"
	keyInScope      = "in_scope"
	keyMismatched   = "mismatched"
	keyInsideDomain = "inside_domain"
	keyOutside      = "outside"
	keyWarnings     = "warnings"
	keyBands        = "bands"
	keyP10          = "p10"
	keyP90          = "p90"
	keyN            = "n"
)

// ProfileFile is a profile as it was given: its name, SHA-256 and content.
type ProfileFile struct {
	Name, SHA256 string
	Profile      *spec.Profile
}

// Section is prediction.json's calibration section: the profiles (name and SHA-256), for
// every role the entry it used, whether the deployment is inside the entry's scope and the
// workload inside its validity domain (and where not), the parameters applied, and the
// 80 % bands of ln(measured / predicted) under the inflation rule (Bands), and the warnings.
func Section(files []ProfileFile, roles map[string]Match, warnings []string) map[string]any {
	ps := make([]any, len(files))
	for i, f := range files {
		ps[i] = map[string]any{keyFile: f.Name, keySHA256: f.SHA256}
	}
	rs := map[string]any{}
	for role, m := range roles {
		e := files[m.Profile].Profile.Entries[m.Entry]
		p := FromProfile(e.Parameters)
		params := map[string]any{}
		for k, name := range ParamNames {
			params[name] = p[k]
		}
		b := Bands(e.Residuals, m.OutsideLog, m.InScope())
		bands := map[string]any{}
		for k, band := range map[string]uncertainty.Band{"ttft": b.TTFT, "tpot": b.TPOT, "e2e": b.E2E, "output_throughput": b.OutputThroughput} {
			bands[k] = map[string]any{keyP10: band.P10, keyP90: band.P90, keyN: band.N}
		}
		rs[role] = map[string]any{keyProfile: m.Profile, keyEntry: m.Entry, keyInScope: m.InScope(), keyMismatched: orEmpty(m.Mismatched),
			keyInsideDomain: len(m.Outside) == 0, keyOutside: orEmpty(m.Outside), keyParameters: params, keyBands: bands}
	}
	return map[string]any{keyProfiles: ps, keyRoles: rs, keyWarnings: orEmpty(warnings)}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
