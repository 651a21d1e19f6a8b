-- setlk: ino, session, owner, lock. Sets or clears the owner's range,
-- splitting and merging its other ranges as fcntl does.
local ino, sid = tonumber(ARGV[A]), ARGV[A + 1]
local me = sid .. ':' .. ARGV[A + 2]
local l = read_lock(A + 3)
local k = P .. ':p' .. d(ino)
if l.t ~= 2 and conflict(k, me, l) then return fail('EAGAIN') end
local out = {}
for _, r in ipairs(ranges(redis.call('HGET', k, me))) do
  if r.e < l.s or r.s > l.e then
    out[#out + 1] = r
  else
    if r.s < l.s then out[#out + 1] = {t = r.t, s = r.s, e = l.s - 1, pid = r.pid} end
    if r.e > l.e then out[#out + 1] = {t = r.t, s = l.e + 1, e = r.e, pid = r.pid} end
  end
end
if l.t ~= 2 then out[#out + 1] = l end
table.sort(out, function(x, y) return x.s < y.s end)
local packed, last = {}, nil
for _, r in ipairs(out) do
  if last and last.t == r.t and last.e + 1 >= r.s then
    if r.e > last.e then last.e = r.e end
  else
    last = r
    packed[#packed + 1] = r
  end
end
if #packed == 0 then
  redis.call('HDEL', k, me)
  return 1
end
local b = {}
for i, r in ipairs(packed) do b[i] = struct.pack(LFMT, r.t, r.s, r.e, r.pid) end
redis.call('HSET', k, me, table.concat(b))
redis.call('SADD', k_locked(sid), 'p' .. d(ino))
return 1
