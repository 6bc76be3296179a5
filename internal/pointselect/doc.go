// Package pointselect is a native Go port of sysbench 1.0.20's
// oltp_point_select (docs/point-select-spec.md): the same schema
// and data (Prepare, Cleanup), the same per-event work (one table chosen
// uniformly, one id from --rand-type, one server-side prepared
// SELECT c FROM sbtestN WHERE id=?), the same random distributions
// (special with its reused uniform, uniform, gaussian, pareto, and master's
// zipfian), the same 1024-bucket latency histogram and percentile rule,
// and the same report layout (WriteInterval, WriteSummary), plus JSON.
//
// Run drives any Backend: MySQL (a real server through go-sql-driver/mysql,
// one connection and one prepared statement per table per worker, on the
// wall clock with one goroutine per worker) or a simulated one such as the
// AHI model, which runs as a deterministic discrete-event simulation on a
// virtual clock in one goroutine.
//
// Deliberate differences from sysbench 1.0.20:
//   - a lost connection (2013, 2006, 2011, 2055, or the server's 1927
//     "killed" / 1053 "shutdown") always reconnects, re-prepares and re-runs
//     the event, counted as a reconnect; sysbench does so only when the code
//     is listed in --mysql-ignore-errors, which by default it is not;
//   - Warmup is sysbench master's --warmup-time (1.0.20 has none);
//   - per-worker generators are seeded from one seed (RunConfig.Seed), so a
//     seeded run is reproducible, which sysbench's is not;
//   - Prepare loads tables in parallel with LOAD DATA LOCAL INFILE from a
//     generated stream when the server allows it (else sysbench's 512 KiB
//     INSERTs), with unique and foreign-key checks off; the DDL is identical;
//   - not ported: --rate, --report-checkpoints, --forced-shutdown,
//     --db-ps-mode=disable, prewarm, SSL and compression options.
package pointselect
