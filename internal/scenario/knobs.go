package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// Knobs are the knob changes of one commit: key to value, a nil value
// removing the knob. In JSON a value may be a string, a boolean or a
// number (kept as written: 1.0 stays "1.0"), or null.
type Knobs map[string]*string

// UnmarshalJSON accepts string, boolean, number and null values.
func (k *Knobs) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Knobs, len(raw))
	for key, v := range raw {
		v = bytes.TrimSpace(v)
		switch {
		case string(v) == "null":
			out[key] = nil
		case len(v) > 0 && v[0] == '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("knob %s: %w", key, err)
			}
			out[key] = &s
		case string(v) == "true" || string(v) == "false":
			s := string(v)
			out[key] = &s
		case json.Valid(v) && (v[0] == '-' || v[0] >= '0' && v[0] <= '9'):
			s := string(v)
			out[key] = &s
		default:
			return fmt.Errorf("knob %s: value %s is not a string, boolean, number or null", key, v)
		}
	}
	*k = out
	return nil
}

// MarshalJSON writes booleans and numbers bare, other values as strings,
// keys sorted.
func (k Knobs) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, key := range k.Keys() {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(key)
		b.Write(kb)
		b.WriteByte(':')
		v := k[key]
		switch {
		case v == nil:
			b.WriteString("null")
		case *v == "true" || *v == "false" || isJSONNumber(*v):
			b.WriteString(*v)
		default:
			vb, _ := json.Marshal(*v)
			b.Write(vb)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func isJSONNumber(s string) bool {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// Keys returns the keys of k, sorted.
func (k Knobs) Keys() []string {
	keys := make([]string, 0, len(k))
	for key := range k {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}
