import { describe, expect, test } from "vitest";
import { sum } from "./sum";

describe("sum", () => {
  test("adds two numbers", () => {
    expect(sum(1, 2)).toBe(3);
  });
  describe("with signs", () => {
    test("adds (a+b)? negatives $1", () => {
      expect(sum(-1, -2)).toBe(-3);
    });
  });
});
