package simcore

import (
	"io/fs"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/spec"
)

// resolveShared resolves, before the search, the parts of a recommendation that every
// candidate shares and that only the catalog or the files can judge: the model, the
// hardware of every role and the trace (docs/recommend.md, "Checks before the search").
// Each failure is the *spec.Error predict reports for the same value (configError), so a bad
// model, hardware id or trace is exit 2 with its path and nothing written, instead of a
// sweep of candidates that all fail alike.
func resolveShared(rec *spec.Recommendation, files fs.FS) error {
	model, _ := spec.GetPath(rec.Tree, spec.PathModel)
	id, _ := model.(string)
	if _, err := catalog.LookupModel(id, files); err != nil {
		return configError(err, "")
	}
	if err := resolveHardware(rec); err != nil {
		return err
	}
	cfg, err := rec.SampleConfig()
	if err != nil || cfg.Traffic.Source.Type != spec.SourceTrace {
		return nil // checkConcrete left a decoding error to the searched values that cause it
	}
	if files == nil {
		files = emptyFS{}
	}
	w, err := traffic.LoadTrace(cfg.Traffic.Source, cfg.Traffic.Load, files)
	if err != nil {
		return configError(err, "")
	}
	return rec.CheckLoadedTrace(w.Graph != nil)
}

// resolveHardware looks up engine.hardware (written by optimization.hardware when it was
// auto) and the hardware override of each disaggregated role some mode uses.
func resolveHardware(rec *spec.Recommendation) error {
	id, _ := spec.GetPath(rec.Tree, spec.PathHardware)
	sid, _ := id.(string)
	if _, err := catalog.LookupHardware(sid); err != nil {
		if sid == rec.Optimization.Hardware {
			return spec.At("optimization.hardware", err)
		}
		return configError(err, "")
	}
	for _, role := range []string{spec.RolePrefill, spec.RoleDecode} {
		id, ok := spec.GetPath(rec.Tree, spec.WorkerPath(role, "hardware"))
		if !ok {
			continue
		}
		sid, _ := id.(string)
		if _, err := catalog.LookupHardware(sid); err != nil {
			return configError(err, role)
		}
	}
	return nil
}
