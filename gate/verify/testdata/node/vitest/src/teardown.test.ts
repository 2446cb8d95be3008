import { afterAll, expect, test } from "vitest";

afterAll(() => {
  throw new Error("teardown broke");
});

test("fine", () => {
  expect(1).toBe(1);
});
