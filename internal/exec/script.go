package exec

// Server-side JavaScript ($where, $function, $accumulator): linking
// package js registers its sessions with expr.RegisterScript, so every
// filter and pipeline the engine compiles can run JavaScript.
import _ "github.com/relaydb/relaydb/internal/js"
