package calibration

import (
	"sort"
	"strconv"
	"strings"

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
	keyStrict       = "strict"
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
	ps := profileRefs(files)
	rs := map[string]any{}
	for role, m := range roles {
		p := FromProfile(files[m.Profile].Profile.Entries[m.Entry].Parameters)
		params := p.Tree()
		b := RoleBands(files, m)
		bands := map[string]any{}
		for k, band := range map[string]uncertainty.Band{"ttft": b.TTFT, "tpot": b.TPOT, "e2e": b.E2E, "output_throughput": b.OutputThroughput} {
			bands[k] = map[string]any{keyP10: band.P10, keyP90: band.P90, keyN: band.N}
		}
		rs[role] = map[string]any{keyProfile: m.Profile, keyEntry: m.Entry, keyInScope: m.InScope(), keyMismatched: orEmpty(m.Mismatched),
			keyInsideDomain: len(m.Outside) == 0, keyOutside: orEmpty(m.Outside), keyParameters: params, keyBands: bands}
	}
	return map[string]any{keyProfiles: ps, keyRoles: rs, keyWarnings: orEmpty(warnings)}
}

// RoleBands are the calibrated 80 % bands of one role: its entry's residuals under the
// inflation rule (Bands) for how far the prediction lies outside the entry's domain and
// scope.
func RoleBands(files []ProfileFile, m Match) uncertainty.Bands {
	e := files[m.Profile].Profile.Entries[m.Entry]
	return Bands(e.Residuals, MinHalfWidthOf(e.Scope.Mode), m.OutsideLog, m.InScope())
}

// Intervals are the bands of a calibrated prediction's `intervals` object and the group that
// names them (docs/calibration.md, "Calibrated intervals"): per metric the widest of its
// roles' bands (uncertainty.Bands.Widest; the roles of one entry share one band), and the
// entry or entries they come from — "FILE entries[i]", or per role "ROLE: FILE entries[i]"
// joined by "; " when the roles use different entries. ok is false without roles.
func Intervals(files []ProfileFile, roles map[string]Match) (b uncertainty.Bands, group string, ok bool) {
	names := make([]string, 0, len(roles))
	for role := range roles {
		names = append(names, role)
	}
	sort.Strings(names)
	var per []string
	same := true
	for i, role := range names {
		m := roles[role]
		if i == 0 {
			b = RoleBands(files, m)
		} else {
			b = b.Widest(RoleBands(files, m))
			first := roles[names[0]]
			same = same && m.Profile == first.Profile && m.Entry == first.Entry
		}
		per = append(per, role+": "+files[m.Profile].Name+" entries["+strconv.Itoa(m.Entry)+"]")
	}
	if len(names) == 0 {
		return b, "", false
	}
	if same {
		m := roles[names[0]]
		return b, files[m.Profile].Name + " entries[" + strconv.Itoa(m.Entry) + "]", true
	}
	return b, strings.Join(per, "; "), true
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ProvenanceOf is recommendation.json's provenance.calibration: the profiles ({file,
// sha256}, as in prediction.json's calibration section) and whether --strict-calibration
// was given.
func ProvenanceOf(files []ProfileFile, strict bool) map[string]any {
	return map[string]any{keyProfiles: profileRefs(files), keyStrict: strict}
}

// profileRefs are the profiles by name and SHA-256.
func profileRefs(files []ProfileFile) []any {
	ps := make([]any, len(files))
	for i, f := range files {
		ps[i] = map[string]any{keyFile: f.Name, keySHA256: f.SHA256}
	}
	return ps
}
