package request

import "github.com/relaydb/relaydb/internal/cmdspec"

// Validate is the validate command: {validate: <coll>, full, background,
// repair, metadata, checkBSONConformance, enforceFastCount}. Every check
// relaydb has runs whatever the flags say (they select MongoDB's
// WiredTiger-level checks, which relaydb has no equivalent of); repair
// and metadata are refused.
type Validate struct {
	cmdspec.Cmd          `cmd:"validate" roles:"primary,secondary"`
	Collection           cmdspec.CollName `cmd:",command"`
	Full                 any              `cmd:"full"`
	Background           any              `cmd:"background"`
	Repair               any              `cmd:"repair"`
	Metadata             any              `cmd:"metadata"`
	CheckBSONConformance any              `cmd:"checkBSONConformance"`
	EnforceFastCount     any              `cmd:"enforceFastCount"`
	Scandata             any              `cmd:"scandata"`
}

// Profile is the profile command: {profile: <level>, slowms, sampleRate,
// filter}.
type Profile struct {
	cmdspec.Cmd `cmd:"profile" roles:"primary,secondary"`
	Level       any `cmd:",command"`
	SlowMS      any `cmd:"slowms"`
	SampleRate  any `cmd:"sampleRate"`
	Filter      any `cmd:"filter"`
}
