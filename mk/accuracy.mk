# `make accuracy CSV=path/to/measured.csv` replays every measured row through the simulator
# with the default timing/capacity models and prints TTFT/TPOT MAPE and coverage.
# `make calibrate CSV=… OPS=…` re-derives simcore/perf/calibration.json. Neither is part of
# `make test`.
CSV ?= ../shared/calibration/measured.csv
OPS ?= ../shared/calibration/ops/h200_sxm

.PHONY: accuracy accuracy-surrogate calibrate catalog

accuracy:
	$(GO) run ./cmd/accuracy $(CSV)

accuracy-surrogate:
	$(GO) run ./cmd/accuracy -surrogate $(CSV)

calibrate:
	$(GO) run ./tools/calibrate -csv $(CSV) -ops $(OPS) -out simcore/perf/calibration.json

# Regenerate the embedded model/hardware catalogs from config.json and system files.
MODELS  ?= ../shared/models
SYSTEMS ?= ../shared/systems
catalog:
	$(GO) run ./tools/gencatalog -models $(MODELS) -systems $(SYSTEMS) -out simcore/catalog
