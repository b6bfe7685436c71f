package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Explain is the explain command; the command it explains is kept as sent.
type Explain struct {
	cmdspec.Cmd `cmd:"explain" roles:"primary,secondary,router"`
	Command     any `cmd:",command"`
	Verbosity   any `cmd:"verbosity"`
}
