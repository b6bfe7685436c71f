// Package request holds one struct per command: the request as a data
// node and a router both read it, decoded from and encoded back to BSON
// by package cmdspec. Each struct's cmdspec.Cmd tag names the command and
// the roles that may run it; its fields' tags name the fields the command
// accepts. The file for a command (or a family: replset.go, sessions.go,
// info.go) has the same name as its handler's in package command. Nothing
// here depends on the engine, so a router can import it.
package request
