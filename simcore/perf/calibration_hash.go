package perf

import (
	"crypto/sha256"
	"encoding/hex"
)

// CalibrationSHA256 is the hex SHA-256 of the embedded calibration.json. Files derived from
// one calibration (the default model's error bands, simcore/uncertainty/bands.json) record
// it, so a test can tell when they describe another model.
func CalibrationSHA256() string {
	sum := sha256.Sum256(calibrationJSON)
	return hex.EncodeToString(sum[:])
}
