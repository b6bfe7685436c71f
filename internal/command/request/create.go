package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Create is the create command. Its options are kept as sent (the catalog
// stores them for listCollections); the data node refuses those it does
// not support.
type Create struct {
	cmdspec.Cmd                  `cmd:"create" roles:"primary,router"`
	Collection                   cmdspec.CollName `cmd:",command"`
	Capped                       any              `cmd:"capped"`
	Size                         any              `cmd:"size"`
	Max                          any              `cmd:"max"`
	Validator                    any              `cmd:"validator"`
	ValidationLevel              any              `cmd:"validationLevel"`
	ValidationAction             any              `cmd:"validationAction"`
	ViewOn                       any              `cmd:"viewOn"`
	Pipeline                     any              `cmd:"pipeline"`
	Collation                    any              `cmd:"collation"`
	Timeseries                   any              `cmd:"timeseries"`
	ClusteredIndex               any              `cmd:"clusteredIndex"`
	ChangeStreamPreAndPostImages any              `cmd:"changeStreamPreAndPostImages"`
	StorageEngine                any              `cmd:"storageEngine"`
	IndexOptionDefaults          any              `cmd:"indexOptionDefaults"`
	IDIndex                      any              `cmd:"idIndex"`
	ExpireAfterSeconds           any              `cmd:"expireAfterSeconds"`
	EncryptedFields              any              `cmd:"encryptedFields"`
	AutoIndexID                  any              `cmd:"autoIndexId"`
	Flags                        any              `cmd:"flags"`
}
