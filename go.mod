module aisimulate

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/hexops/vecty v0.6.0 // indirect
	github.com/syumai/workers v0.30.2 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/sys v0.44.0 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
