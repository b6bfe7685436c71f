package config

import (
	"fmt"
	"strconv"
)

// replWriterThreadCount is mongod's startup-only parameter for how many
// writers apply oplog batches on a secondary (repl/applier), 1 to 256
// (MongoDB's bounds). Unset: the applier's default.
const (
	replWriterThreadCount    = "replWriterThreadCount"
	maxReplWriterThreadCount = 256
)

func init() { knownParameters[replWriterThreadCount] = true }

// ReplWriterThreadCount returns --setParameter replWriterThreadCount, or 0
// when unset or invalid (Validate reports invalid values).
func (s *Serve) ReplWriterThreadCount() int {
	n, err := strconv.Atoi(s.Parameters[replWriterThreadCount])
	if err != nil || n < 1 || n > maxReplWriterThreadCount {
		return 0
	}
	return n
}

// validateReplWriters checks replWriterThreadCount, with the message
// mongod gives for a startup parameter out of its bounds.
func (s *Serve) validateReplWriters() error {
	v, ok := s.Parameters[replWriterThreadCount]
	if !ok {
		return nil
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return fmt.Errorf("Bad value for parameter %q: %q is not a valid int", replWriterThreadCount, v)
	case n < 1:
		return fmt.Errorf("Invalid value for parameter %s: %d is not greater than or equal to 1", replWriterThreadCount, n)
	case n > maxReplWriterThreadCount:
		return fmt.Errorf("Invalid value for parameter %s: %d is not less than or equal to %d", replWriterThreadCount, n, maxReplWriterThreadCount)
	}
	return nil
}
