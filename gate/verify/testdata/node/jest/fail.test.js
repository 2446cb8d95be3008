const sum = require("./sum");

test("adds wrong", () => {
  expect(sum(1, 1)).toBe(3);
});

test("adds right", () => {
  expect(sum(1, 1)).toBe(2);
});
