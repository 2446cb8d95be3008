const assert = require("node:assert");
const { test, describe } = require("node:test");
const { listen } = require("./server");

function pad(n, width = 2) {
  let s = String(n);
  while (s.length < width) s = "0" + s;
  return s;
}

describe("pad", () => {
  test("pads short numbers", () => {
    assert.strictEqual(pad(7), "07");
  });

  test("keeps long numbers", () => {
    const result = pad(1234, 3);
    assert.equal(result.length, 4);
  });
});

test("listen returns a server", async (t) => {
  const { server } = listen(0);
  t.after(() => server.close());
  assert.ok(server);
});
