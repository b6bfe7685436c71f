package experiment

import (
	"time"

	"github.com/relaydb/relaydb/internal/bench/machine"
)

// Machine is what a reader needs to compare results between machines.
type Machine struct {
	machine.Facts
	Commit string `json:"commit,omitempty"`
}

// ThisMachine gathers the facts of the machine the experiment runs on;
// commit is the binary's commit when known ("" = the build's VCS stamp,
// then git).
func ThisMachine(commit string, now time.Time) Machine {
	return Machine{Facts: machine.This(now), Commit: machine.Commit(commit)}
}
