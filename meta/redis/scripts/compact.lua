-- compact: ino, chunk index, the old records (concatenated), the new one.
-- The old records must still be the first of the chunk's list, as
-- meta.CompactList decides; compact_lua_test.go holds this port to it.
local ino, idx, old, rec = tonumber(ARGV[A]), tonumber(ARGV[A + 1]), ARGV[A + 2], ARGV[A + 3]
local k = k_chunk(ino, idx)
local n = #old / SLEN
if n == 0 then return fail('EINVAL') end
local cur = redis.call('LRANGE', k, 0, n - 1)
if #cur < n then return fail('CONFLICT') end
local gone = {}
for i = 1, n do
  local r = string.sub(old, (i - 1) * SLEN + 1, i * SLEN)
  if cur[i] ~= r then return fail('CONFLICT') end
  gone[i] = r
end
redis.call('LTRIM', k, n, -1)
redis.call('LPUSH', k, rec)
redis.call('SADD', k_chunks(ino), d(idx))
ref(rec)
for _, r in ipairs(gone) do unref(r) end
return 1
