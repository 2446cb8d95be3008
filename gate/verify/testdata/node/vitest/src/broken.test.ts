import { expect, test } from "vitest";
import { sum } from "./sum";

test("never parses", () => {
  expect(sum(1, 1)).toBe(2;
});
