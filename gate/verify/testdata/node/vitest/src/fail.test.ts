import { expect, test } from "vitest";
import { sum } from "./sum";

test("adds wrong", () => {
  expect(sum(1, 1)).toBe(3);
});

test("adds right", () => {
  expect(sum(1, 1)).toBe(2);
});
