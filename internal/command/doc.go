// Package command turns a request document into a reply document. Every
// command is one entry of the sorted table in commands.go and one request
// struct in package request (cmdspec's tags: field names, required, the
// roles that may run it), each in the file named for the command or its
// family. The dispatcher rejects unknown fields, applies the role gates,
// decodes the request into its struct (cmdspec.Decode, the codec a router
// shares), calls the handler, which calls the engine (package exec), waits
// for the write concern and builds MongoDB's reply shape.
//
// Invariants:
//   - Every error a client sees is a *mongoerr.Error with MongoDB's code and
//     codeName; anything else is reported as InternalError.
//   - A handler never panics the server: a panic becomes InternalError and is
//     logged with the command name.
//   - Unknown top-level fields in a command are rejected (40415), as MongoDB's
//     IDL does, so unsupported options fail loudly instead of being ignored;
//     the commands whose struct has an inline field take any field.
//   - A command whose roles name no secondary needs a writable primary;
//     Read commands run on a secondary only when the client allows it.
package command
