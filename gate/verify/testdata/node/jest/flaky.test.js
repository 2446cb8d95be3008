const fs = require("fs");

test("fails on its first run", () => {
  if (!fs.existsSync("flaky.marker")) {
    fs.writeFileSync("flaky.marker", "");
    throw new Error("first run fails");
  }
});
