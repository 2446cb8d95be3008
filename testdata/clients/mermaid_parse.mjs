// Parses Mermaid flowcharts with the mermaid package's own parser and
// prints what it understood, as JSON:
//   {"type": "flowchart-v2", "vertices": [{"id", "text", "labelType"}], "edges": [{"start", "end", "text"}]}
// A node the text names but never declares has labelType "text" and its id
// as its text.
//   node mermaid_parse.mjs < graph.mmd          one graph; a syntax error exits 1 with mermaid's message on stderr
//   node mermaid_parse.mjs --batch < texts.json  a JSON array of graphs; prints an array of {"graph"} or {"error"}
// (one process for many graphs: loading mermaid takes most of a second).
// mermaid sanitises labels with DOMPurify, which needs a DOM: jsdom's.
import { JSDOM } from "jsdom";
import { readFileSync } from "node:fs";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");

async function parse(text) {
  const { diagramType } = await mermaid.parse(text);
  const d = await mermaid.mermaidAPI.getDiagramFromText(text);
  const out = { type: diagramType, vertices: [], edges: [] };
  if (d.db.getVertices) {
    for (const v of d.db.getVertices().values()) out.vertices.push({ id: v.id, text: v.text, labelType: v.labelType });
    for (const e of d.db.getEdges()) out.edges.push({ start: e.start, end: e.end, text: e.text });
  }
  return out;
}

const message = (e) => String(e && e.message ? e.message : e);
const input = readFileSync(0, "utf8");
if (process.argv.includes("--batch")) {
  const results = [];
  for (const text of JSON.parse(input)) {
    try {
      results.push({ graph: await parse(text) });
    } catch (e) {
      results.push({ error: message(e) });
    }
  }
  process.stdout.write(JSON.stringify(results) + "\n");
} else {
  try {
    process.stdout.write(JSON.stringify(await parse(input)) + "\n");
  } catch (e) {
    process.stderr.write(message(e) + "\n");
    process.exit(1);
  }
}
