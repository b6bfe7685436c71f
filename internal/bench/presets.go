package bench

import (
	"fmt"
	"strings"
)

// presetCommon is what every YCSB core workload file (workloads/workloada
// ... workloadf) sets besides its mix.
var presetCommon = Properties{
	"recordcount":               "1000",
	"operationcount":            "1000",
	"workload":                  "site.ycsb.workloads.CoreWorkload",
	"readallfields":             "true",
	"readproportion":            "0",
	"updateproportion":          "0",
	"scanproportion":            "0",
	"insertproportion":          "0",
	"readmodifywriteproportion": "0",
}

// presetMix is each YCSB core workload's operation mix and distribution.
var presetMix = map[string]Properties{
	"a": {"readproportion": "0.5", "updateproportion": "0.5", "requestdistribution": "zipfian"},
	"b": {"readproportion": "0.95", "updateproportion": "0.05", "requestdistribution": "zipfian"},
	"c": {"readproportion": "1", "requestdistribution": "zipfian"},
	"d": {"readproportion": "0.95", "insertproportion": "0.05", "requestdistribution": "latest"},
	"e": {"scanproportion": "0.95", "insertproportion": "0.05", "requestdistribution": "zipfian",
		"maxscanlength": "100", "scanlengthdistribution": "uniform"},
	"f": {"readproportion": "0.5", "readmodifywriteproportion": "0.5", "requestdistribution": "zipfian"},
}

// Preset returns the properties of YCSB core workload name: "a".."f",
// also accepted as "workloada".."workloadf" or upper case.
func Preset(name string) (Properties, error) {
	key := strings.TrimPrefix(strings.ToLower(name), "workload")
	mix, ok := presetMix[key]
	if !ok {
		return nil, fmt.Errorf("unknown workload preset %q (want a, b, c, d, e or f)", name)
	}
	p := presetCommon.Clone()
	p.Merge(mix)
	return p, nil
}
