-- A test-only operation: reads an attribute record and a slice record as
-- the scripts do (lib.lua's unpack_attr and SFMT), returns their fields
-- as decimal strings and the attribute record packed again, for
-- records_lua_test.go.
local a = unpack_attr(ARGV[A])
local pos, id, size, off, len = struct.unpack(SFMT, ARGV[A + 1])
return {pack_attr(a), d(a.t), d(a.mode), d(a.uid), d(a.gid), d(a.rdev), d(a.nlink), d(a.len),
  d(a.as), d(a.an), d(a.ms), d(a.mn), d(a.cs), d(a.cn), d(a.parent),
  d(pos), d(id), d(size), d(off), d(len)}
