// Command load drives a running `cairn serve mcp --http` with concurrent
// MCP clients (the official Go SDK's streamable HTTP client), each issuing a
// fixed mix of search, callers and build_context calls for a bounded time,
// and prints per-tool latency percentiles, errors and the server's RSS.
//
//	load -url http://127.0.0.1:7040/mcp -clients 32 -duration 60s -pid PID
//
// Every client runs a closed loop: call, wait -think (uniformly jittered
// ±50%), call again. Half the calls are search (a fixed list of questions
// about mono1m's parts, and the names of the definitions they find), four
// in ten callers (of the functions and methods those searches find, and of
// the most central ones), one in ten build_context for a question. Only
// loopback addresses are accepted.
package main
