package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// RenameCollection is the renameCollection command (sent to admin, with
// full namespaces).
type RenameCollection struct {
	cmdspec.Cmd `cmd:"renameCollection" roles:"primary,router"`
	From        string `cmd:",command"`
	To          string `cmd:"to,required"`
	DropTarget  bool   `cmd:"dropTarget"`
	StayTemp    any    `cmd:"stayTemp"`
}
