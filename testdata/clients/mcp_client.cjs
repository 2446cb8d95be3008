// Drives `cairn serve mcp` with the official MCP TypeScript SDK, over stdio
// and over streamable HTTP, against the fixture repository.
//   CAIRN=bin REPO=dir [STORE=postgres://…] node mcp_client.cjs (stdio|http)
// With STORE the server reads the repository's index in that shared store.
const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport, getDefaultEnvironment } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const CAIRN = process.env.CAIRN, REPO = process.env.REPO, STORE = process.env.STORE;
const mode = process.argv[2];
// every tool (--tools all): the default lean profile lists seven (serve/mcp TestLeanProfile)
const serveArgs = (...extra) => ["serve", "mcp", "--tools", "all", "--repo", REPO, ...(STORE ? ["--store", STORE] : []), ...extra];
// the SDK passes a stdio server only a few variables: add the cache's
const serverEnv = { ...getDefaultEnvironment(), ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}) };

function text(res) {
  return (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

async function connect(transport) {
  const client = new Client({ name: "cairn-ts-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

// checks exercises every tool; the SDK validates each structuredContent
// against the tool's output schema.
async function checks(client) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["build_context", "callees", "callers", "definition", "entry_points", "impact", "implementations", "index_status", "package_graph", "read_span", "references", "repo_map", "search", "trace", "verify_change"]);
  for (const t of tools) assert.ok(t.outputSchema && t.inputSchema.type === "object", t.name);

  let res = await client.callTool({ name: "definition", arguments: { symbol: "Serve" } });
  assert.ok(!res.isError, text(res));
  assert.equal(res.structuredContent.definitions.length, 2);
  for (const d of res.structuredContent.definitions) assert.match(d.revision, /^[0-9a-f]{12}$/);

  res = await client.callTool({ name: "callers", arguments: { symbol: "Serve" } });
  assert.ok(res.isError);
  assert.match(text(res), /^ambiguous: /);
  const cands = res._meta["cairn/error"].candidates;
  assert.equal(cands.length, 2);
  const goServe = cands.find((c) => c.path === "server/server.go");
  res = await client.callTool({ name: "callers", arguments: { symbol: goServe.symbol_id } });
  assert.ok(!res.isError, text(res));
  assert.equal(res.structuredContent.results[0].name, "Run");
  assert.equal(res.structuredContent.results[0].call_site.start_line, 22);

  res = await client.callTool({ name: "search", arguments: { query: "serve requests store", limit: 1 } });
  assert.ok(!res.isError, text(res));
  const next = res.structuredContent.next_cursor;
  assert.ok(next);
  const res2 = await client.callTool({ name: "search", arguments: { query: "serve requests store", limit: 1, cursor: next } });
  assert.notDeepEqual(res2.structuredContent.hits[0], res.structuredContent.hits[0]);

  res = await client.callTool({ name: "read_span", arguments: { path: "../../etc/passwd" } });
  assert.ok(res.isError);
  assert.match(text(res), /^outside_repository: /);
  res = await client.callTool({ name: "read_span", arguments: { path: "server/server.go", start_line: 12, end_line: 14 } });
  assert.ok(!res.isError, text(res));
  assert.match(res.structuredContent.text, /12\tfunc \(s \*Server\) Serve\(\) string/);

  res = await client.callTool({ name: "build_context", arguments: { task: "how does the server read from the store", budget: 1500 } });
  assert.ok(!res.isError, text(res));
  assert.ok(res.structuredContent.used_tokens <= 1500 && res.structuredContent.items.length > 0);
  assert.match(text(res), /server\/server\.go/);

  for (const [name, args] of [["references", { symbol: "Greet" }], ["implementations", { symbol: "Store" }],
    ["callees", { symbol: "Server.handle" }], ["repo_map", { limit: 5 }], ["index_status", {}],
    ["trace", { target: "Server.st" }], ["impact", { symbol: "NewServer" }], ["entry_points", {}], ["package_graph", {}]]) {
    res = await client.callTool({ name, arguments: args });
    assert.ok(!res.isError, name + ": " + text(res));
  }
  res = await client.callTool({ name: "search", arguments: { query: 7 } });
  assert.ok(res.isError, "a numeric query must be refused");
}

async function main() {
  if (mode === "stdio") {
    const client = await connect(new StdioClientTransport({ command: CAIRN, args: serveArgs(), env: serverEnv, stderr: "inherit" }));
    await checks(client);
    await client.close();
    console.log("mcp stdio: ok");
    return;
  }
  const server = spawn(CAIRN, serveArgs("--http", "127.0.0.1:0"), { stdio: ["ignore", "inherit", "pipe"] });
  try {
    const url = await new Promise((resolve, reject) => {
      let buf = "";
      server.stderr.on("data", (d) => {
        buf += d;
        const m = buf.match(/at (http:\/\/\S+\/mcp)/);
        if (m) resolve(m[1]);
      });
      server.on("exit", (code) => reject(new Error("server exited " + code + ": " + buf)));
      setTimeout(() => reject(new Error("server did not start: " + buf)), 20000).unref();
    });
    const client = await connect(new StreamableHTTPClientTransport(new URL(url)));
    await checks(client);
    await client.close();
    // Many clients at once.
    const clients = await Promise.all(Array.from({ length: 8 }, () => connect(new StreamableHTTPClientTransport(new URL(url)))));
    const results = await Promise.all(clients.flatMap((c) => [
      c.callTool({ name: "search", arguments: { query: "store get value" } }),
      c.callTool({ name: "callers", arguments: { symbol: "Server.Serve" } }),
      c.callTool({ name: "build_context", arguments: { task: "server", budget: 1000 } }),
    ]));
    for (const r of results) assert.ok(!r.isError, text(r));
    await Promise.all(clients.map((c) => c.close()));
    console.log("mcp http: ok (" + results.length + " concurrent calls)");
  } finally {
    server.kill("SIGTERM");
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
