package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// CloneCollectionAsCapped copies a collection into a new capped one.
type CloneCollectionAsCapped struct {
	cmdspec.Cmd  `cmd:"cloneCollectionAsCapped" roles:"primary,router"`
	Collection   cmdspec.CollName `cmd:",command"`
	ToCollection string           `cmd:"toCollection,required"`
	Size         any              `cmd:"size,required"`
	Temp         any              `cmd:"temp"`
}

// ConvertToCapped makes a collection capped (as a copy renamed over it).
type ConvertToCapped struct {
	cmdspec.Cmd `cmd:"convertToCapped" roles:"primary,router"`
	Collection  cmdspec.CollName `cmd:",command"`
	Size        any              `cmd:"size,required"`
}
