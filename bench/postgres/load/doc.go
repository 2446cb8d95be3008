// Command load measures the PostgreSQL store under concurrent clients, and
// the recall of its HNSW index; the same workloads run on the embedded store
// as the baseline. See bench/postgres/run.sh.
//
//	load -store URL -repo NAME -mode callers|search -clients 16 -n 400
//	load -index DIR -mode callers|search -clients 16 -n 400   (embedded)
//	load -store URL -repo NAME -mode recall -n 200
package main
