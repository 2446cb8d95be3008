const sum = require("./sum");

test.only("focused", () => {
  expect(sum(2, 2)).toBe(4);
});
test("left out by only", () => {
  expect(sum(2, 2)).toBe(4);
});
