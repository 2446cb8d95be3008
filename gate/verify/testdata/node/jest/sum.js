module.exports = function sum(a, b) {
  return a + b;
};
