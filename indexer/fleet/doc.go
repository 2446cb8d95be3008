// Package fleet runs index builds that several processes share through the
// PostgreSQL store: `cairn index --store …`, `cairn worker` and the shared
// store's `cairn watch`, on one machine or many.
//
// It knows the store only through graph's build protocol: Run takes a
// graph.Coordinator (store.OpenShared's Shared) and works with the
// graph.Build it starts or joins, the graph.Jobs it claims and the
// graph.BuildWriters they write through; the protocol's typed errors
// (graph.ErrNoBuild, graph.ErrUnchanged, graph.ErrClaimLost,
// *graph.BusyError) decide what a process does next. How the store keeps
// the protocol (claims, leases, one transaction per job) is
// graph/postgres's business.
//
// The process that starts a build walks the tree once and plans its jobs
// (plan): every path falls under exactly one job's prefixes; a path's work
// is its size when it must be read (new, or changed since the generation
// being extended), so a build from scratch splits into jobs of about equal
// bytes (16 MiB by default) and a small incremental build is one job.
// Every process, starter or joiner, then loops: claim a job, run
// indexer.Extract over its prefixes into the job's writer, commit (which
// marks the job done). When no job is left and none is running, one process
// wins finalization and runs indexer.Finalize (side indexes from the stored
// chunk texts, resolution, derived edges, ranks, swap of the current
// generation); the others wait for the commit. A job that fails goes back
// to the queue; a process that dies loses only its current job. Running the
// command again resumes the build.
//
// Each process keeps its crash journal in a local state slot of its own
// (stateSlot, under the build's graph.Build.StateDir), so that two workers on one machine do not take each other's
// in-flight parses for crashes.
package fleet
