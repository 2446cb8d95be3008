import { expect, test } from "vitest";
import { sum } from "./sum";

test.only("focused", () => {
  expect(sum(2, 2)).toBe(4);
});
test("left out by only", () => {
  expect(sum(2, 2)).toBe(4);
});
