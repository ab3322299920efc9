module aisimulate

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	github.com/hexops/vecty v0.6.0
	github.com/syumai/workers v0.30.2
	github.com/tetratelabs/wazero v1.12.0
	go.yaml.in/yaml/v2 v2.4.2
	sigs.k8s.io/yaml v1.6.0
)

require golang.org/x/sys v0.44.0 // indirect
