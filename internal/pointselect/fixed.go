package pointselect

import (
	"cmp"
	"context"
	"fmt"
)

// A FixedConfig describes a fixed, seeded sequence of point selects from
// one connection: the workload of a count (instructions per query), not of
// a clock. Zero fields take the documented defaults.
type FixedConfig struct {
	// Tables and TableSize are the prepared data's (--tables,
	// --table-size). Defaults 1 and 10000.
	Tables    int
	TableSize int64
	// Rand selects the id distribution. Default DefaultRandConfig.
	Rand RandConfig
	// Seed seeds the generator. Default 1: every build sees the same ids.
	Seed uint64
	// Warmup is the number of queries run before the measured ones: the
	// sequence's first Warmup queries, after which the sequence starts
	// again, so with Warmup >= Queries every row the measured queries read
	// has been read before. Default 0.
	Warmup int
	// Queries is the number of measured queries (required, >= 1).
	Queries int
}

// WithDefaults returns c with zero fields set to their defaults.
func (c FixedConfig) WithDefaults() FixedConfig {
	c.Tables = cmp.Or(c.Tables, DefaultRunConfig.Tables)
	c.TableSize = cmp.Or(c.TableSize, DefaultRunConfig.TableSize)
	c.Seed = cmp.Or(c.Seed, 1)
	c.Rand = c.Rand.withDefaults()
	return c
}

// Validate reports the first nonsensical field, after defaults.
func (c FixedConfig) Validate() error {
	c = c.WithDefaults()
	switch {
	case c.Tables < 1:
		return fmt.Errorf("tables %d: must be >= 1", c.Tables)
	case c.TableSize < 1 || c.TableSize > 1<<31-1:
		return fmt.Errorf("table-size %d: must be in 1..2147483647", c.TableSize)
	case c.Warmup < 0:
		return fmt.Errorf("warm-up %d queries: must not be negative", c.Warmup)
	case c.Queries < 1:
		return fmt.Errorf("queries %d: must be >= 1", c.Queries)
	}
	return c.Rand.Validate()
}

// A FixedSession is one connection that runs a seeded sequence of point
// selects, as worker 0 of Run would with the same seed: the same prepared
// statement, the same table and id generators. It is not timed.
type FixedSession struct {
	conn   Conn
	rng    Rand
	dist   *Dist
	tables uint32
	seed   uint64
	done   int64 // queries run so far
}

// OpenFixed connects one session to b for the sequence of cfg.
func OpenFixed(ctx context.Context, b Backend, cfg FixedConfig) (*FixedSession, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	dist, err := NewDist(cfg.Rand, 1, uint32(cfg.TableSize))
	if err != nil {
		return nil, err
	}
	conn, err := b.Connect(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("connecting the fixed sequence's session: %w", err)
	}
	s := &FixedSession{conn: conn, dist: dist, tables: uint32(cfg.Tables), seed: cfg.Seed}
	s.Restart()
	return s, nil
}

// Restart starts the sequence again from its first query.
func (s *FixedSession) Restart() { s.rng.Seed(workerSeed(s.seed, 0)) }

// Next runs the next n queries of the sequence. Any error ends it: a
// reconnect or a retried query would change the work being counted.
func (s *FixedSession) Next(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		if i&255 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		table := int(s.rng.Uniform(1, s.tables))
		id := int64(s.dist.Draw(&s.rng))
		if _, err := s.conn.PointSelect(ctx, table, id); err != nil {
			return fmt.Errorf("fixed sequence, query %d (table %d, id %d): %w", s.done+1, table, id, err)
		}
		s.done++
	}
	return nil
}

// Done is the number of queries run so far.
func (s *FixedSession) Done() int64 { return s.done }

// Close ends the session.
func (s *FixedSession) Close() error { return s.conn.Close() }

// RunFixed runs cfg's sequence on one new connection: its first
// cfg.Warmup queries, then between (for example: zero the server's
// counters), then its first cfg.Queries queries again from the start, and
// returns when they are done. between may be nil.
func RunFixed(ctx context.Context, b Backend, cfg FixedConfig, between func(context.Context) error) error {
	s, err := OpenFixed(ctx, b, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Next(ctx, cfg.Warmup); err != nil {
		return err
	}
	s.Restart()
	if between != nil {
		if err := between(ctx); err != nil {
			return err
		}
	}
	return s.Next(ctx, cfg.Queries)
}
