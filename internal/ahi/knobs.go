package ahi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Knob keys, as they appear in scenario JSON and in a materialised tree
// (one file per knob). ParseKnobs rejects any other key.
//
// Each knob is tagged as in docs/ahi-model-spec.md: [fact] maps to a real
// server setting or code variant, [model] is a modelling choice,
// [calibration] is a labelled fudge factor for effects the model does not
// produce mechanically.
const (
	KnobAHI               = "ahi"                  // [fact] on|off: innodb_adaptive_hash_index. Default on.
	KnobParts             = "parts"                // [fact] 1..512: innodb_adaptive_hash_index_parts. Default 8.
	KnobCells             = "cells"                // [fact] auto|N: hash cells per partition (auto = pool bytes/8/64/parts, pre-MDEV-37482). Default auto.
	KnobVariant           = "variant"              // [fact] legacy106|rewrite118|rewrite118cells: code generation (spec L4, R1, R2). Default rewrite118.
	KnobRefcountFix       = "refcount_fix"         // [fact] bool: the 11.8 fixup 83a48d2bc84 present. Default true.
	KnobNonLRUTables      = "nonlru_tables"        // [model] int: how many queried tables are pinned in dict_sys.table_non_LRU. Default 1.
	KnobStartupCycle      = "startup_cycle"        // [model] bool: AHI is disabled and re-enabled once at start (e.g. buffer-pool resize). Default true.
	KnobDropMode          = "drop_mode"            // [fact] eager|eager57|lazy: MySQL 5.7 DROP vs MDEV-22456 lazy drop. Default lazy.
	KnobDictMutexPerQuery = "dict_mutex_per_query" // [model] 0..1: share of queries that need the global dictionary mutex. Default 0.
	KnobPoolPages         = "pool_pages"           // [fact] int: buffer-pool capacity in pages, 0 = everything resident. Default 0.
	KnobToggle            = "toggle"               // [fact] list "10s:off,20s:on": SET GLOBAL innodb_adaptive_hash_index at those times. Default none.
	KnobDropAt            = "drop_at"              // [fact] duration: DROP TABLE of the extra table at that time, "" = never. Default "".
	KnobDropTableRows     = "drop_table_rows"      // [model] int: rows of an extra, hashed, unqueried table (the one drop_at drops), 0 = none. Default 0.
	KnobLeafRecords       = "leaf_records"         // [derived] records per leaf page (sbtest ~73). Default 73.
	KnobFanout            = "fanout"               // [derived] node-pointer records per internal page. Default 1000.
	KnobTPSFactor         = "tps_factor"           // [calibration] float > 0: multiplies every throughput figure. Default 1.0.
)

// KnobKeys returns every knob key ParseKnobs accepts, sorted.
func KnobKeys() []string {
	keys := make([]string, 0, len(knobSetters))
	for k := range knobSetters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Variant names the generation of the AHI code the model follows.
type Variant string

// The variants of spec §12.4.
const (
	VariantLegacy106       Variant = "legacy106"       // 10.6–11.4 (spec L4)
	VariantRewrite118      Variant = "rewrite118"      // 11.8 MDEV-35049 rewrite (R1): X latch for insert/erase
	VariantRewrite118Cells Variant = "rewrite118cells" // after MDEV-37482 (R2): S latch + cell latches
)

// DropMode names how DROP TABLE treats the AHI entries of the dropped table.
type DropMode string

// The drop modes of spec §12.4.
const (
	DropEager DropMode = "eager" // MySQL 5.7: per page, partition X latch, under the dictionary mutex (§11.2)
	DropLazy  DropMode = "lazy"  // MDEV-22456: mark freed, drop on eviction (§8)
)

// A Toggle is one SET GLOBAL innodb_adaptive_hash_index at simulated time At.
type Toggle struct {
	At time.Duration
	On bool
}

// Knobs select the code variant and the scenario of the model. Every field
// maps to one key of ParseKnobs (see the Knob* constants for tags).
type Knobs struct {
	AHI               bool          // ahi; default true (MariaDB's own default is OFF since 10.5; the model studies AHI on)
	Parts             int           // parts; default 8, 1..512
	Cells             int           // cells per partition; 0 = auto (default)
	Variant           Variant       // variant; default rewrite118
	RefcountFix       bool          // refcount_fix; default true
	NonLRUTables      int           // nonlru_tables; default 1 [model]
	StartupCycle      bool          // startup_cycle; default true [model]
	DropMode          DropMode      // drop_mode; default lazy
	DictMutexPerQuery float64       // dict_mutex_per_query; default 0
	PoolPages         int           // pool_pages; default 0 (all resident)
	Toggles           []Toggle      // toggle; default none
	DropAt            time.Duration // drop_at; default -1 (never)
	DropTableRows     int64         // drop_table_rows; default 0 (no extra table)
	LeafRecords       int           // leaf_records; default 73
	Fanout            int           // fanout; default 1000
	TPSFactor         float64       // tps_factor; default 1.0 [calibration]
}

// DefaultKnobs returns the defaults documented on Knobs.
func DefaultKnobs() Knobs {
	return Knobs{
		AHI: true, Parts: 8, Variant: VariantRewrite118, RefcountFix: true,
		NonLRUTables: 1, StartupCycle: true, DropMode: DropLazy,
		DropAt: -1, LeafRecords: 73, Fanout: 1000, TPSFactor: 1.0,
	}
}

// Validate rejects knob values the model cannot run.
func (k Knobs) Validate() error {
	switch {
	case k.Parts < 1 || k.Parts > 512:
		return fmt.Errorf("knob %s: %d outside 1..512", KnobParts, k.Parts)
	case k.Cells < 0:
		return fmt.Errorf("knob %s: %d is negative", KnobCells, k.Cells)
	case k.Variant != VariantLegacy106 && k.Variant != VariantRewrite118 && k.Variant != VariantRewrite118Cells:
		return fmt.Errorf("knob %s: unknown variant %q (legacy106, rewrite118, rewrite118cells)", KnobVariant, k.Variant)
	case k.NonLRUTables < 0:
		return fmt.Errorf("knob %s: %d is negative", KnobNonLRUTables, k.NonLRUTables)
	case k.DropMode != DropEager && k.DropMode != DropLazy:
		return fmt.Errorf("knob %s: unknown mode %q (eager, lazy)", KnobDropMode, k.DropMode)
	case k.DictMutexPerQuery < 0 || k.DictMutexPerQuery > 1:
		return fmt.Errorf("knob %s: %g outside 0..1", KnobDictMutexPerQuery, k.DictMutexPerQuery)
	case k.PoolPages < 0:
		return fmt.Errorf("knob %s: %d is negative", KnobPoolPages, k.PoolPages)
	case k.DropTableRows < 0:
		return fmt.Errorf("knob %s: %d is negative", KnobDropTableRows, k.DropTableRows)
	case k.DropAt >= 0 && k.DropTableRows == 0:
		return fmt.Errorf("knob %s needs %s > 0 (the table to drop)", KnobDropAt, KnobDropTableRows)
	case k.LeafRecords < 2 || k.LeafRecords > 1000:
		return fmt.Errorf("knob %s: %d outside 2..1000", KnobLeafRecords, k.LeafRecords)
	case k.Fanout < 2 || k.Fanout > 10000:
		return fmt.Errorf("knob %s: %d outside 2..10000", KnobFanout, k.Fanout)
	case !(k.TPSFactor > 0) || k.TPSFactor > 100:
		return fmt.Errorf("knob %s: %g must be in (0, 100]", KnobTPSFactor, k.TPSFactor)
	}
	for i, t := range k.Toggles {
		if t.At < 0 || (i > 0 && t.At < k.Toggles[i-1].At) {
			return fmt.Errorf("knob %s: times must be >= 0 and ascending", KnobToggle)
		}
	}
	return nil
}

// ParseKnobs reads knobs from string key/values over DefaultKnobs. Unknown
// keys and malformed values are errors that name the key.
func ParseKnobs(m map[string]string) (Knobs, error) {
	k := DefaultKnobs()
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys) // deterministic: the first bad key is always reported
	for _, key := range keys {
		set, ok := knobSetters[key]
		if !ok {
			return Knobs{}, fmt.Errorf("unknown knob %q (known: %s)", key, strings.Join(KnobKeys(), ", "))
		}
		if err := set(&k, strings.TrimSpace(m[key])); err != nil {
			return Knobs{}, fmt.Errorf("knob %s=%q: %w", key, m[key], err)
		}
	}
	if err := k.Validate(); err != nil {
		return Knobs{}, err
	}
	return k, nil
}

// Map returns the knobs as the string key/values ParseKnobs reads, every
// key present (ParseKnobs(k.Map()) == k).
func (k Knobs) Map() map[string]string {
	toggles := make([]string, len(k.Toggles))
	for i, t := range k.Toggles {
		toggles[i] = t.At.String() + ":" + onOff(t.On)
	}
	dropAt := ""
	if k.DropAt >= 0 {
		dropAt = k.DropAt.String()
	}
	cells := "auto"
	if k.Cells > 0 {
		cells = strconv.Itoa(k.Cells)
	}
	return map[string]string{
		KnobAHI: onOff(k.AHI), KnobParts: strconv.Itoa(k.Parts), KnobCells: cells,
		KnobVariant: string(k.Variant), KnobRefcountFix: strconv.FormatBool(k.RefcountFix),
		KnobNonLRUTables: strconv.Itoa(k.NonLRUTables), KnobStartupCycle: strconv.FormatBool(k.StartupCycle),
		KnobDropMode: string(k.DropMode), KnobDictMutexPerQuery: fmtFloat(k.DictMutexPerQuery),
		KnobPoolPages: strconv.Itoa(k.PoolPages), KnobToggle: strings.Join(toggles, ","),
		KnobDropAt: dropAt, KnobDropTableRows: strconv.FormatInt(k.DropTableRows, 10),
		KnobLeafRecords: strconv.Itoa(k.LeafRecords), KnobFanout: strconv.Itoa(k.Fanout),
		KnobTPSFactor: fmtFloat(k.TPSFactor),
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// parseBool accepts true/false, on/off, yes/no, 1/0, present/absent.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "on", "yes", "1", "present":
		return true, nil
	case "false", "off", "no", "0", "absent":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean (true/false, on/off)")
}

func parseInt(s string, min int64) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not an integer")
	}
	if v < min {
		return 0, fmt.Errorf("must be >= %d", min)
	}
	return v, nil
}

func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	return v, nil
}

// parseDuration accepts Go durations ("30s") and plain seconds ("30").
func parseDuration(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration (e.g. 30s)")
	}
	return d, nil
}

func parseToggles(s string) ([]Toggle, error) {
	var out []Toggle
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		at, state, ok := strings.Cut(item, ":")
		if !ok {
			return nil, fmt.Errorf("%q: want TIME:on|off", item)
		}
		d, err := parseDuration(at)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		on, err := parseBool(state)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		out = append(out, Toggle{At: d, On: on})
	}
	return out, nil
}
