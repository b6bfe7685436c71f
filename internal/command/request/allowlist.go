package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// SetIPAllowlist is setIPAllowlist (relaydb's own): replaces the IP
// allowlist of every member of the replica set.
type SetIPAllowlist struct {
	cmdspec.Cmd        `cmd:"setIPAllowlist" roles:"primary"`
	Value              any     `cmd:",command"`
	Addresses          *bson.A `cmd:"addresses"`
	AlwaysAllowMembers *bool   `cmd:"alwaysAllowMembers"`
	Force              *bool   `cmd:"force"`
	UseConfig          *bool   `cmd:"useConfig"`
	Comment            any     `cmd:"comment"`
}

// GetIPAllowlist is getIPAllowlist: the list in force and its counters.
type GetIPAllowlist struct {
	cmdspec.Cmd `cmd:"getIPAllowlist" roles:"primary,secondary"`
	Value       any `cmd:",command"`
	Comment     any `cmd:"comment"`
}
