package command

// TODO(#10): helpers of the commands not yet in the table; they go with
// them.

import "github.com/relaydb/relaydb/internal/cmdspec"

var genericFields genericSet

type genericSet struct{}

func (genericSet) get(k string) bool { return cmdspec.IsGeneric(k) }
