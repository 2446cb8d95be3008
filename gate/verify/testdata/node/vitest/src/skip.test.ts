import { expect, test } from "vitest";
import { sum } from "./sum";

test("runs", () => {
  expect(sum(0, 0)).toBe(0);
});
test.skip("skipped for now", () => {
  expect(sum(1, 1)).toBe(2);
});
test.todo("someday");
