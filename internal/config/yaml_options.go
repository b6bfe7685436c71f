package config

import (
	"errors"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

func intOpt(field func(*Serve) *int) option {
	return func(n *yaml.Node, s *Serve) error { return decodeScalar(n, "!!int", field(s)) }
}

func stringOpt(field func(*Serve) *string) option {
	return func(n *yaml.Node, s *Serve) error { return decodeScalar(n, "!!str", field(s)) }
}

func boolOpt(field func(*Serve) *bool) option {
	return func(n *yaml.Node, s *Serve) error { return decodeScalar(n, "!!bool", field(s)) }
}

// ignoredOpt accepts any scalar; applyOption records a warning.
func ignoredOpt(n *yaml.Node, _ *Serve) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("must be a scalar")
	}
	return nil
}

func isIgnored(path string) bool {
	switch path {
	case "storage.oplogMinRetentionHours", "storage.journal.enabled",
		"systemLog.quiet", "systemLog.timeStampFormat":
		return true
	}
	return false
}

func commitIntervalOpt(n *yaml.Node, s *Serve) error {
	var ms int
	if err := decodeScalar(n, "!!int", &ms); err != nil {
		return err
	}
	s.JournalCommitInterval = time.Duration(ms) * time.Millisecond
	return nil
}

// decodeScalar decodes a scalar node of the given YAML tag into v. Strings
// accept any scalar (bindIp: 127.0.0.1 is a string either way).
func decodeScalar(n *yaml.Node, tag string, v any) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("must be a scalar")
	}
	if tag != "!!str" && n.ShortTag() != tag {
		return fmt.Errorf("%q is not a valid %s", n.Value, tag[2:])
	}
	if p, ok := v.(*string); ok {
		*p = n.Value
		return nil
	}
	return n.Decode(v)
}

// applySystemLog maps systemLog.destination/path onto LogPath: "file" needs
// a path; "syslog" is approximated by stderr (with a warning); a path
// without a destination means a file, as mongod's --logpath.
func applySystemLog(leaves map[string]*yaml.Node, s *Serve) error {
	var dest, path string
	if n := leaves["systemLog.destination"]; n != nil {
		if err := decodeScalar(n, "!!str", &dest); err != nil {
			return fmt.Errorf("systemLog.destination: %w", err)
		}
	}
	if n := leaves["systemLog.path"]; n != nil {
		if err := decodeScalar(n, "!!str", &path); err != nil {
			return fmt.Errorf("systemLog.path: %w", err)
		}
	}
	switch dest {
	case "file", "":
		if dest == "file" && path == "" {
			return errors.New("systemLog.path is required when systemLog.destination is file")
		}
		if path != "" {
			s.LogPath = path
		}
	case "syslog":
		s.LogPath = ""
		s.Warnings = append(s.Warnings, "systemLog.destination syslog is not supported; logging to stderr")
	default:
		return fmt.Errorf("systemLog.destination %q is invalid (file or syslog)", dest)
	}
	return nil
}
