package config

import (
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"
)

// setParameterSection applies a YAML setParameter: mapping (mongod's and
// mongos's configuration file form of --setParameter) with set, which
// checks each name and value as the flag does. A parameter also given
// with --setParameter keeps the flag's value: flags win over the file, and
// the file is read after the flags are parsed.
func setParameterSection(n *yaml.Node, params map[string]string, set func(name, value string) error) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("must be a mapping of parameter names to values")
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, v := n.Content[i].Value, n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			errs = append(errs, fmt.Errorf("line %d: setParameter.%s must be a scalar", v.Line, name))
			continue
		}
		if _, byFlag := params[name]; byFlag {
			continue
		}
		if err := set(name, v.Value); err != nil {
			errs = append(errs, fmt.Errorf("line %d: setParameter.%s: %w", v.Line, name, err))
		}
	}
	return errors.Join(errs...)
}

// serveSetParameterOpt is the data node's setParameter: section.
func serveSetParameterOpt(n *yaml.Node, s *Serve) error {
	return setParameterSection(n, s.Parameters, func(name, value string) error { return s.setParameter(name, value) })
}

// setParameter records one server parameter after checking its name.
func (s *Serve) setParameter(name, value string) error {
	if !knownParameters[name] {
		return fmt.Errorf("unknown server parameter %q", name)
	}
	if s.Parameters == nil {
		s.Parameters = map[string]string{}
	}
	s.Parameters[name] = value
	return nil
}
