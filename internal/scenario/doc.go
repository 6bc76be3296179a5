// Package scenario describes dry-run commit histories and materialises
// them as real git repositories, so a dry-run bisect walks the same
// internal/repo code as a bisect of MariaDB.
//
// A scenario (FORMAT.md has the JSON) lists commits and the model knobs
// each one changes. Materialize writes every knob as one file,
// knobs/<key>, so a knob change is a file change: patch-ids, cherry-picks
// and "is this fix on that branch" work as they do on real code. KnobsAt
// and KnobsInDir read the knobs of a commit back as map[string]string;
// internal/ahi parses them (ahi.ParseKnobs). This package does not import
// the model: the knob keys are the model's business.
//
// Two scenarios are built in (BuiltinNames, Builtin, Load):
// mdev-12.0-point-select, the 11.8 vs 12.0 regression of
// docs/seeds/mdev-12.0-point-select-regression.txt, and
// drop-table-stall, the DROP TABLE stall of docs/seeds/drop-table-ahi-stall.txt.
package scenario
