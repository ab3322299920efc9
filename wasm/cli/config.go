package cli

import (
	"io"
	"os"
	"strconv"

	"aisimulate/simcore/spec"
)

// readConfig reads the --config file, at most spec.MaxConfigBytes of it: a larger file, or
// an endless device such as /dev/zero, is a configuration error (exit 2) after reading one
// byte more than the limit, never a read until memory runs out (docs/robustness.md).
func readConfig(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, &usageError{topUsage, "aisimulate", "could not read configuration " + name + ": " + errText(err)}
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, spec.MaxConfigBytes+1))
	if err != nil {
		return nil, &usageError{topUsage, "aisimulate", "could not read configuration " + name + ": " + errText(err)}
	}
	if len(text) > spec.MaxConfigBytes {
		return nil, configError(name, spec.ConfigTooLarge)
	}
	return text, nil
}

// maxReasonBytes bounds the reason of a configuration error as printed: a reason quoting a
// long value (a string of megabytes) is cut there, so an error is always a readable line.
const maxReasonBytes = 1000

// shortReason cuts msg to maxReasonBytes, on a UTF-8 boundary, saying how much was left out.
func shortReason(msg string) string {
	if len(msg) <= maxReasonBytes {
		return msg
	}
	cut := maxReasonBytes
	for cut > 0 && msg[cut]&0xC0 == 0x80 {
		cut--
	}
	return msg[:cut] + "… (" + strconv.Itoa(len(msg)-cut) + " more bytes)"
}
