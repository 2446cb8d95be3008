// Drives `cairn serve lsp` over stdio with vscode-jsonrpc and the
// vscode-languageserver-protocol request types, against the fixture
// repository.   CAIRN=bin REPO=dir [STORE=postgres://…] node lsp_client.cjs
// With STORE the server reads the repository's index in that shared store,
// and neither watches nor re-indexes edits.
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");
const { pathToFileURL } = require("node:url");
const rpc = require("vscode-jsonrpc/node");
const P = require("vscode-languageserver-protocol");

const CAIRN = process.env.CAIRN, REPO = process.env.REPO, STORE = process.env.STORE;
const uri = (rel) => pathToFileURL(path.join(REPO, rel)).href;
const at = (rel, line, character) => ({ textDocument: { uri: uri(rel) }, position: { line, character } });

async function main() {
  const proc = spawn(CAIRN, ["serve", "lsp", "--repo", REPO, ...(STORE ? ["--store", STORE] : [])], { stdio: ["pipe", "pipe", "inherit"] });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));
  const indexed = [];
  conn.onNotification("cairn/indexed", (p) => indexed.push(p));
  conn.listen();
  const init = await conn.sendRequest(P.InitializeRequest.type, { processId: process.pid, rootUri: pathToFileURL(REPO).href, capabilities: {} });
  const caps = init.capabilities;
  for (const c of ["definitionProvider", "referencesProvider", "hoverProvider", "documentSymbolProvider", "workspaceSymbolProvider", "callHierarchyProvider", "implementationProvider"]) {
    assert.ok(caps[c], c);
  }
  await conn.sendNotification(P.InitializedNotification.type, {});

  // "Greet" after "é😀": UTF-16 column 39, byte column 42.
  let locs = await conn.sendRequest(P.DefinitionRequest.type, at("server/greet.go", 6, 40));
  assert.equal(locs.length, 1);
  assert.equal(locs[0].uri, uri("server/greet.go"));
  assert.deepEqual(locs[0].range.start, { line: 3, character: 5 });

  locs = await conn.sendRequest(P.ReferencesRequest.type, { ...at("server/greet.go", 3, 6), context: { includeDeclaration: false } });
  assert.equal(locs.length, 1);
  assert.deepEqual(locs[0].range, { start: { line: 6, character: 39 }, end: { line: 6, character: 44 } });

  const hov = await conn.sendRequest(P.HoverRequest.type, at("server/server.go", 11, 18));
  for (const want of ["func (s *Server) Serve() string", "Serve handles requests", "1 caller", "owners:"]) {
    assert.ok(hov.contents.value.includes(want), want + " in " + hov.contents.value);
  }

  const syms = await conn.sendRequest(P.DocumentSymbolRequest.type, { textDocument: { uri: uri("store/store.go") } });
  assert.deepEqual(syms.map((s) => s.name), ["Store", "MemStore", "NewMemStore", "Get"]);
  assert.equal(syms[0].children[0].name, "Get");

  const ws = await conn.sendRequest(P.WorkspaceSymbolRequest.type, { query: "MemStore" });
  assert.equal(ws[0].name, "MemStore");
  // partial names, as typed: a prefix, word humps, a subsequence
  for (const [query, first] of [["NewMem", "NewMemStore"], ["nms", "NewMemStore"], ["bnr", "Banner"]]) {
    const got = await conn.sendRequest(P.WorkspaceSymbolRequest.type, { query });
    assert.ok(got.length > 0 && got[0].name === first, `workspace/symbol ${query}: ${JSON.stringify(got.map((s) => s.name))}`);
  }

  const items = await conn.sendRequest(P.CallHierarchyPrepareRequest.type, at("server/server.go", 11, 18));
  assert.equal(items[0].name, "Server.Serve");
  const inc = await conn.sendRequest(P.CallHierarchyIncomingCallsRequest.type, { item: items[0] });
  assert.equal(inc[0].from.name, "Run");
  assert.equal(inc[0].fromRanges[0].start.line, 21);
  const out = await conn.sendRequest(P.CallHierarchyOutgoingCallsRequest.type, { item: items[0] });
  assert.equal(out[0].to.name, "Server.handle");

  const impls = await conn.sendRequest(P.ImplementationRequest.type, at("web/client.ts", 0, 20));
  assert.equal(impls.length, 1);
  assert.equal(impls[0].uri, uri("web/client.ts"));

  // An edit, saved: the index follows through the incremental path.
  const file = path.join(REPO, "server/greet.go");
  const before = fs.readFileSync(file, "utf8");
  const after = before + "\n// Farewell says goodbye.\nfunc Farewell() string { return Greet() }\n";
  await conn.sendNotification(P.DidOpenTextDocumentNotification.type, { textDocument: { uri: uri("server/greet.go"), languageId: "go", version: 1, text: before } });
  if (!STORE) {
    // Unsaved edits: two lines above Greet move everything down; answers
    // follow the buffer, not the file on disk.
    const moved = before.replace("// Greet says hello.", "// moved\n\n// Greet says hello.") + "\nfunc Hello() string { return Greet() }\n";
    await conn.sendNotification(P.DidChangeTextDocumentNotification.type, { textDocument: { uri: uri("server/greet.go"), version: 2 }, contentChanges: [{ text: moved }] });
    locs = await conn.sendRequest(P.DefinitionRequest.type, at("server/greet.go", 8, 40));
    assert.equal(locs.length, 1, "definition at a moved position: " + JSON.stringify(locs));
    assert.deepEqual(locs[0].range.start, { line: 5, character: 5 });
    locs = await conn.sendRequest(P.DefinitionRequest.type, at("server/greet.go", 10, 30));
    assert.equal(locs.length, 1, "definition of Greet from an unsaved line: " + JSON.stringify(locs));
    assert.deepEqual(locs[0].range.start, { line: 5, character: 5 });
    const dsyms = await conn.sendRequest(P.DocumentSymbolRequest.type, { textDocument: { uri: uri("server/greet.go") } });
    assert.deepEqual(dsyms.map((s) => `${s.name}@${s.selectionRange.start.line}`), ["Greet@5", "Banner@8", "Hello@10"]);
  }
  await conn.sendNotification(P.DidChangeTextDocumentNotification.type, { textDocument: { uri: uri("server/greet.go"), version: 3 }, contentChanges: [{ text: after }] });
  fs.writeFileSync(file, after);
  await conn.sendNotification(P.DidSaveTextDocumentNotification.type, { textDocument: { uri: uri("server/greet.go") } });
  if (STORE) {
    // a reader of the shared store: the saved edit is not indexed here
    await new Promise((r) => setTimeout(r, 1500));
    const found = (await conn.sendRequest(P.WorkspaceSymbolRequest.type, { query: "Farewell" })).filter((s) => s.name === "Farewell");
    assert.equal(found.length, 0, "a server over a shared store indexed an edit");
    assert.equal(indexed.length, 0, "a server over a shared store sent cairn/indexed");
    await conn.sendRequest(P.ShutdownRequest.type);
    await conn.sendNotification(P.ExitNotification.type);
    await new Promise((r) => proc.on("exit", r));
    console.log("lsp stdio (shared store): ok");
    return;
  }
  let found = [];
  for (let i = 0; i < 300 && found.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    found = (await conn.sendRequest(P.WorkspaceSymbolRequest.type, { query: "Farewell" })).filter((s) => s.name === "Farewell");
  }
  assert.equal(found.length, 1, "Farewell never indexed");
  assert.equal(found[0].location.range.start.line, 9);
  // the server's own re-index reports itself (an embedded watcher may have
  // committed the change first)
  for (let i = 0; i < 200 && indexed.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(indexed.length > 0, "no cairn/indexed notification");
  // each names the generation it committed (the fixture's index is 1)
  for (const n of indexed) assert.ok(n.generation >= 2 && n.parsed >= 0 && n.paths.includes("server/greet.go"), "cairn/indexed " + JSON.stringify(n));

  await conn.sendRequest(P.ShutdownRequest.type);
  await conn.sendNotification(P.ExitNotification.type);
  await new Promise((r) => proc.on("exit", r));
  console.log("lsp stdio: ok");
}

main().catch((e) => { console.error(e); process.exit(1); });
