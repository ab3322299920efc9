package deploy

import (
	"fmt"
	"strings"
)

// resourceName is metadata.name of the manifest: "aisim-NNNN-<backend>-<agg|disagg>". It is
// built from the deployment number and two enum values only, so it is always a valid
// Kubernetes name (a DNS-1123 label: lower-case letters, digits and '-', at most 63
// characters) whatever the model id holds.
func resourceName(n int, backend, mode string) string {
	short := "agg"
	if mode != "aggregated" {
		short = "disagg"
	}
	return fmt.Sprintf("aisim-%04d-%s-%s", n, dnsLabel(backend), short)
}

// dnsLabel keeps the characters of s a DNS-1123 label allows, lower-cased.
func dnsLabel(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteRune(c)
		}
	}
	return strings.Trim(b.String(), "-")
}
