-- cairn PostgreSQL store, schema version 2: planner statistics for the
-- tables keyed by generation.
--
-- Every build adds a generation whose rows carry a gen_id newer than any the
-- last ANALYZE saw. With full statistics the most-common-values list holds
-- every generation there was, so the planner estimates one row for the new
-- one and plans a lookup by name as a scan of the generation's whole
-- membership with a probe per file (60 ms instead of 2 ms on mono1m; a
-- watcher's build asks dozens). With a one-entry list, a new generation is
-- estimated like any other: its rows divided among the distinct values.
-- cairn:min-reader 1
ALTER TABLE gen_files ALTER COLUMN gen_id SET STATISTICS 1;
ALTER TABLE gen_skips ALTER COLUMN gen_id SET STATISTICS 1;
ALTER TABLE gen_edges ALTER COLUMN gen_id SET STATISTICS 1;
ALTER TABLE ranks ALTER COLUMN gen_id SET STATISTICS 1;
ALTER TABLE gen_side_files ALTER COLUMN gen_id SET STATISTICS 1;
ANALYZE gen_files, gen_skips, gen_edges, ranks, gen_side_files;
