package js

import "github.com/relaydb/relaydb/internal/agg/expr"

// Sessions are expr.Scripts; operations that bring none get a session
// without maxTimeMS (still bounded by DefaultEvalLimit).
var _ expr.Script = (*Session)(nil)

func init() {
	expr.RegisterScript(func() expr.Script { return NewSession(Options{}) })
}
