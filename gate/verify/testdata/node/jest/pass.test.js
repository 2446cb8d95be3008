const sum = require("./sum");

describe("sum", () => {
  test("adds two numbers", () => {
    expect(sum(1, 2)).toBe(3);
  });
  test("adds (a+b)? negatives $1", () => {
    expect(sum(-1, -2)).toBe(-3);
  });
});
