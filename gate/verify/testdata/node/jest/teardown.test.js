afterAll(() => {
  throw new Error("teardown broke");
});

test("fine", () => {
  expect(1).toBe(1);
});
