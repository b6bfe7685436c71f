package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// DropIndexes is the dropIndexes command; index is a name, a list of
// names or a key pattern.
type DropIndexes struct {
	cmdspec.Cmd           `cmd:"dropIndexes" roles:"primary,router"`
	Collection            cmdspec.CollName `cmd:",command"`
	Index                 any              `cmd:"index,required"`
	IsTimeseriesNamespace any              `cmd:"isTimeseriesNamespace"`
}
