package request

import "github.com/relaydb/relaydb/internal/cmdspec"

// Authenticate is authenticate: a MONGODB-X509 login on $external with the
// client's TLS certificate (user, when given, must be its subject).
type Authenticate struct {
	cmdspec.Cmd `cmd:"authenticate" roles:"primary,secondary,unauthenticated"`
	Value       any     `cmd:",command"`
	Mechanism   string  `cmd:"mechanism,required"`
	User        *string `cmd:"user"`
}
