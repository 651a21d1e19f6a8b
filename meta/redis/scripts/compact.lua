-- compact: ino, chunk index, the old records (concatenated), the new one.
local ino, idx, old, rec = tonumber(ARGV[A]), tonumber(ARGV[A + 1]), ARGV[A + 2], ARGV[A + 3]
local k = k_chunk(ino, idx)
local n = #old / SLEN
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
