// Package ahi is an in-process model of MariaDB InnoDB's adaptive hash
// index (AHI), the stand-in for a real server in dry runs.
//
// It follows docs/ahi-model-spec.md. Sections 1–11 of the spec are facts
// read from MariaDB sources; section 12 is a modelling proposal. Code
// comments keep the distinction: [fact] (with the spec section), [derived]
// (arithmetic on facts), [inference], [model] (a modelling choice) and
// [calibration] (tps_factor, Costs). Every report built from the model
// (Report, SimResult.Notes, WriteDropTable) repeats the [model] choices
// that shaped its numbers and says which figures tps_factor touched.
//
// What is modelled:
//   - tables as implicit B+trees (leaf_records per leaf, fanout per
//     internal page; descents do real binary searches and, in measured
//     mode, S-latch coupling);
//   - the AHI: partitions chosen by index id % parts, CRC-32C folds seeded
//     by the index id, real fold collisions (a colliding pair shares one
//     node and ping-pongs through HASH_FAIL and update_hash_ref);
//     hash nodes are otherwise implicit (a record has a node when its page
//     is hashed), so a call needs no per-record memory;
//   - search_info and buf_block_t fields, the lookup flow of §4, the
//     learning and build rules of §5 with the constants of §3 (17, 100,
//     16, 2·n_recs), for the variants legacy106, rewrite118 and
//     rewrite118cells;
//   - disable/enable (§9) with the ref_count reset of the 11.8 rewrite and
//     the 83a48d2bc84 fixup (knob refcount_fix), eager (MySQL 5.7) and
//     lazy (MDEV-22456) DROP TABLE, optional eviction (CLOCK);
//   - the counters of §12.3.
//
// Two modes. Deterministic: one goroutine; each event's simulated latency
// comes from what the model executed (Outcome) times Costs, queued FCFS on
// Costs.Cores simulated CPUs, plus waits on the timeline's latches
// (disable, eager drop, dictionary mutex). Measured: real goroutines and
// real latches (sync.RWMutex, atomics), timed by the wall clock.
//
// Entry points: Simulate (fast sampled direct run for dry-run bisects),
// NewBackend (a pointselect.Backend), RunDropScenario, and New/Lookup for
// tests and tools. Knobs: ParseKnobs, see KNOBS.md.
//
// The seed mdev-12.0 regression: the spec says the lookup path never reads
// ref_count, so the fixup cannot change lookup speed by itself (§9.1,
// unresolved). The model produces the seed's ≈0.6 % through a chain of
// labelled [model] choices: the harness cycles AHI off and on after
// warm-up (startup_cycle), one table sits in table_non_LRU
// (nonlru_tables), without the fix that table keeps a stale ref_count
// [fact], and a stale ref_count ≥ the index's leaf pages makes the model
// refuse to hash that index's pages ("partial AHI disablement"); Costs are
// set so that this costs ≈ 0.6 % at 8 × 1M rows and 128 threads.
package ahi
