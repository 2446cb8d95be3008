import { existsSync, writeFileSync } from "node:fs";
import { test } from "vitest";

test("fails on its first run", () => {
  if (!existsSync("flaky.marker")) {
    writeFileSync("flaky.marker", "");
    throw new Error("first run fails");
  }
});
