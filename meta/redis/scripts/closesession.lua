-- closesession: session. Releases its orphans and locks and forgets it.
local sid = ARGV[A]
for _, ino in ipairs(redis.call('SMEMBERS', k_orphans(sid))) do
  local a = get_attr(ino)
  if a and a.nlink == 0 then destroy(tonumber(ino), a) end
end
local mine = sid .. ':'
for _, key in ipairs(redis.call('SMEMBERS', k_locked(sid))) do
  local k = P .. ':' .. key
  for _, f in ipairs(redis.call('HKEYS', k)) do
    if string.sub(f, 1, #mine) == mine then redis.call('HDEL', k, f) end
  end
end
redis.call('DEL', k_orphans(sid), k_locked(sid))
redis.call('HDEL', P .. ':sessinfo', sid)
return redis.call('ZREM', P .. ':sessions', sid)
