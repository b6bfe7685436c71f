package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Find is the find command.
type Find struct {
	cmdspec.Cmd  `cmd:"find" roles:"primary,secondary,router"`
	Collection   cmdspec.CollName  `cmd:",command"`
	Filter       bson.D            `cmd:"filter"`
	Projection   bson.D            `cmd:"projection"`
	Sort         bson.D            `cmd:"sort"`
	Skip         int64             `cmd:"skip"`
	Limit        int64             `cmd:"limit"`
	BatchSize    *int64            `cmd:"batchSize"`
	SingleBatch  bool              `cmd:"singleBatch"`
	Hint         cmdspec.Hint      `cmd:"hint"`
	AllowDiskUse bool              `cmd:"allowDiskUse"`
	Let          bson.D            `cmd:"let"`
	Collation    cmdspec.Collation `cmd:"collation"`
	// Tailable and AwaitData are read leniently (a wrong type is false).
	Tailable  any `cmd:"tailable"`
	AwaitData any `cmd:"awaitData"`
	// Accepted and not used yet.
	Min                 any `cmd:"min"`
	Max                 any `cmd:"max"`
	ReturnKey           any `cmd:"returnKey"`
	ShowRecordID        any `cmd:"showRecordId"`
	NoCursorTimeout     any `cmd:"noCursorTimeout"`
	OplogReplay         any `cmd:"oplogReplay"`
	AllowPartialResults any `cmd:"allowPartialResults"`
	ReadOnce            any `cmd:"readOnce"`
	Term                any `cmd:"term"`
}
