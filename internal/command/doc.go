// Package command turns a request document into a reply document: one
// sorted registry, one file per command. Each handler parses its BSON into
// typed parameters, checks where it may run, calls the engine (package exec)
// and builds MongoDB's reply shape.
//
// Invariants:
//   - Every error a client sees is a *mongoerr.Error with MongoDB's code and
//     codeName; anything else is reported as InternalError.
//   - A handler never panics the server: a panic becomes InternalError and is
//     logged with the command name.
//   - Unknown top-level fields in a command are rejected (40415), as MongoDB's
//     IDL does, so unsupported options fail loudly instead of being ignored.
package command
