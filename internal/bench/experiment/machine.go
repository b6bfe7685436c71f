package experiment

import (
	"time"

	"github.com/relaydb/relaydb/internal/bench/machine"
)

// Machine is what a reader needs to compare results between machines.
type Machine struct {
	Date      string `json:"date"`
	Cores     int    `json:"cores"`
	CPUModel  string `json:"cpuModel,omitempty"`
	MemoryMB  int64  `json:"memoryMB,omitempty"`
	OS        string `json:"os"`
	Kernel    string `json:"kernel,omitempty"`
	GoVersion string `json:"goVersion"`
	Commit    string `json:"commit,omitempty"`
}

// ThisMachine gathers the facts of the machine the experiment runs on;
// commit is the binary's commit when known ("" = the build's VCS stamp,
// then git).
func ThisMachine(commit string, now time.Time) Machine {
	f := machine.This(now)
	return Machine{Date: f.Date, Cores: f.Cores, CPUModel: f.CPUModel, MemoryMB: f.MemoryMB, OS: f.OS,
		Kernel: f.Kernel, GoVersion: f.GoVersion, Commit: machine.Commit(commit)}
}
