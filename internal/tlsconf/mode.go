package tlsconf

import "fmt"

// Mode is net.tls.mode.
type Mode int

const (
	// Disabled serves plain connections only (the default).
	Disabled Mode = iota
	// Allow accepts TLS and plain connections; outgoing ones are plain.
	Allow
	// Prefer accepts TLS and plain connections; outgoing ones use TLS.
	Prefer
	// Require accepts TLS connections only; outgoing ones use TLS.
	Require
)

var modeNames = [...]string{Disabled: "disabled", Allow: "allowTLS", Prefer: "preferTLS", Require: "requireTLS"}

// String is the mode as net.tls.mode spells it.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode reads net.tls.mode; "" is disabled.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return Disabled, nil
	}
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return Disabled, fmt.Errorf("net.tls.mode %q is invalid: want disabled, allowTLS, preferTLS or requireTLS", s)
}

// Accepts reports whether a server in mode m completes TLS handshakes.
func (m Mode) Accepts() bool { return m != Disabled }

// AcceptsPlain reports whether a server in mode m serves plain connections.
func (m Mode) AcceptsPlain() bool { return m != Require }

// Outgoing reports whether connections this node opens use TLS.
func (m Mode) Outgoing() bool { return m == Prefer || m == Require }
