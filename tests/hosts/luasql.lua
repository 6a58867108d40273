-- tests/hosts/luasql.lua EXT SMOKE: LuaSQL (Debian lua-sql-sqlite3) cannot
-- load the extension, and this checks that it still cannot, so that the
-- README's statement stays true: its connection object has no method that
-- loads an extension (LuaSQL never calls sqlite3_enable_load_extension),
-- and SQL's load_extension() is refused because extension loading is off.
-- A Lua program needs a binding with a load method (lsqlite3's
-- db:load_extension, not packaged by Debian 12) or a host built with the
-- static library (make static, sqlite3_auto_extension).
local ext = arg[1]
local driver = require("luasql.sqlite3")
local env = assert(driver.sqlite3())
local con = assert(env:connect(":memory:"))
local npass, nfail = 0, 0
local function check(ok, what)
  if ok then
    npass = npass + 1
  else
    nfail = nfail + 1
    print("FAIL luasql: " .. what)
  end
end

local methods = {}
for _, name in ipairs({ "load_extension", "loadextension", "enable_load_extension", "load" }) do
  if con[name] ~= nil then methods[#methods + 1] = name end
end
check(#methods == 0, "the connection has a load method now: " .. table.concat(methods, ", "))

local cur, err = con:execute("SELECT load_extension('" .. ext:gsub("'", "''") .. "')")
check(cur == nil and tostring(err):find("not authorized", 1, true) ~= nil,
  "SELECT load_extension() was not refused: " .. tostring(cur or err))

con:close()
env:close()
print(string.format("%d passed, %d failed", npass, nfail))
os.exit(nfail == 0 and 0 or 1)
