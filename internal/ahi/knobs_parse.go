package ahi

import (
	"fmt"
	"strconv"
	"strings"
)

// knobSetters maps each knob key to the function that parses its value.
var knobSetters = map[string]func(*Knobs, string) error{
	KnobAHI: func(k *Knobs, s string) (err error) { k.AHI, err = parseBool(s); return },
	KnobParts: func(k *Knobs, s string) error {
		v, err := parseInt(s, 1)
		k.Parts = int(v)
		return err
	},
	KnobCells: func(k *Knobs, s string) error {
		if strings.EqualFold(s, "auto") || s == "" {
			k.Cells = 0
			return nil
		}
		v, err := parseInt(s, 1)
		k.Cells = int(v)
		return err
	},
	KnobVariant: func(k *Knobs, s string) error { k.Variant = Variant(strings.ToLower(s)); return nil },
	KnobRefcountFix: func(k *Knobs, s string) (err error) {
		k.RefcountFix, err = parseBool(s)
		return
	},
	KnobNonLRUTables: func(k *Knobs, s string) error {
		v, err := parseInt(s, 0)
		k.NonLRUTables = int(v)
		return err
	},
	KnobStartupCycle: func(k *Knobs, s string) (err error) {
		k.StartupCycle, err = parseBool(s)
		return
	},
	KnobDropMode: func(k *Knobs, s string) error {
		switch strings.ToLower(s) {
		case "eager", "eager57":
			k.DropMode = DropEager
		case "lazy":
			k.DropMode = DropLazy
		default:
			return fmt.Errorf("want eager or lazy")
		}
		return nil
	},
	KnobDictMutexPerQuery: func(k *Knobs, s string) (err error) {
		k.DictMutexPerQuery, err = parseFloat(s)
		return
	},
	KnobPoolPages: func(k *Knobs, s string) error {
		v, err := parseInt(s, 0)
		k.PoolPages = int(v)
		return err
	},
	KnobToggle: func(k *Knobs, s string) (err error) { k.Toggles, err = parseToggles(s); return },
	KnobDropAt: func(k *Knobs, s string) error {
		if s == "" || strings.EqualFold(s, "never") {
			k.DropAt = -1
			return nil
		}
		d, err := parseDuration(s)
		if err == nil && d < 0 {
			err = fmt.Errorf("must be >= 0")
		}
		k.DropAt = d
		return err
	},
	KnobDropTableRows: func(k *Knobs, s string) (err error) {
		k.DropTableRows, err = parseInt(s, 0)
		return
	},
	KnobLeafRecords: func(k *Knobs, s string) error {
		v, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("not an integer")
		}
		k.LeafRecords = v
		return nil
	},
	KnobFanout: func(k *Knobs, s string) error {
		v, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("not an integer")
		}
		k.Fanout = v
		return nil
	},
	KnobTPSFactor: func(k *Knobs, s string) (err error) { k.TPSFactor, err = parseFloat(s); return },
}
