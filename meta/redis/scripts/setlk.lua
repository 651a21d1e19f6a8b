-- setlk: ino, session, owner, lock. Sets or clears the owner's range as
-- meta.ApplyLock (meta/locks.go) does: the part of the owner's ranges the
-- lock covers takes its type or is freed, and ranges of one type that
-- overlap or touch become one, which keeps the pid of the lowest older
-- range it absorbs. locks_lua_test.go holds this port to the Go rule.
local ino, sid = tonumber(ARGV[A]), ARGV[A + 1]
local me = sid .. ':' .. ARGV[A + 2]
local l = read_lock(A + 3)
local k = P .. ':p' .. d(ino)
if l.t ~= 2 and conflict(k, me, l) then return fail('EAGAIN') end
local out, grown = {}, {t = l.t, s = l.s, e = l.e, pid = l.pid}
local lowest = nil
for _, r in ipairs(ranges(redis.call('HGET', k, me))) do
  if l.t ~= 2 and r.t == l.t and r.s <= l.e + 1 and l.s <= r.e + 1 then
    if lowest == nil or r.s < lowest then grown.pid, lowest = r.pid, r.s end
    if r.s < grown.s then grown.s = r.s end
    if r.e > grown.e then grown.e = r.e end
  elseif r.s <= l.e and l.s <= r.e then
    if r.s < l.s then out[#out + 1] = {t = r.t, s = r.s, e = l.s - 1, pid = r.pid} end
    if r.e > l.e then out[#out + 1] = {t = r.t, s = l.e + 1, e = r.e, pid = r.pid} end
  else
    out[#out + 1] = r
  end
end
if l.t ~= 2 then out[#out + 1] = grown end
if #out == 0 then
  redis.call('HDEL', k, me)
  return 1
end
table.sort(out, function(x, y) return x.s < y.s end)
local b = {}
for i, r in ipairs(out) do b[i] = struct.pack(LFMT, r.t, r.s, r.e, r.pid) end
redis.call('HSET', k, me, table.concat(b))
redis.call('SADD', k_locked(sid), 'p' .. d(ino))
return 1
