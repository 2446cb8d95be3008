local M = {}
function M.greet(name)
  return helper(name)
end
local function helper(x) return x end
function M:run() self:go() end
return M
