-- replace: the receiving side of a migration's catch-up
-- (meta.InodeReplacer). From ARGV[A], for each inode: its number, how
-- many records follow, then each record as a kind and its fields:
--   i attr | e member | s target | x name value | c index records
-- (a chunk's records packed end to end). Each inode first loses every
-- key it had (its locks aside, which belong to sessions), then gets its
-- records. The new lists' slices gain a reference and leave the
-- dead-slice queue; the old lists' references are kept, and their
-- records returned end to end for the caller to drop (dropreferences)
-- once its whole round is written, with the children of the entries the
-- directories lost or gained.
local kept, moved = {}, {}
local ds, di = 0, 0
local i = A
while i <= #ARGV do
  local ino, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  i = i + 2
  local a = get_attr(ino)
  if a then ds, di = ds - space(a), di - 1 end
  for _, idx in ipairs(redis.call('SMEMBERS', k_chunks(ino))) do
    local k = k_chunk(ino, tonumber(idx))
    for _, r in ipairs(redis.call('LRANGE', k, 0, -1)) do kept[#kept + 1] = r end
    redis.call('DEL', k)
  end
  local was = {}
  for _, m in ipairs(redis.call('ZRANGE', k_dir(ino), 0, -1)) do was[m] = true end
  redis.call('DEL', k_attr(ino), k_xattr(ino), k_symlink(ino), k_dir(ino), k_chunks(ino))
  for _ = 1, n do
    local kind = ARGV[i]
    if kind == 'i' then
      redis.call('SET', k_attr(ino), ARGV[i + 1])
      ds, di = ds + space(unpack_attr(ARGV[i + 1])), di + 1
      i = i + 2
    elseif kind == 'e' then
      local m = ARGV[i + 1]
      redis.call('ZADD', k_dir(ino), 0, m)
      if was[m] then was[m] = nil else moved[#moved + 1] = m end
      i = i + 2
    elseif kind == 's' then
      redis.call('SET', k_symlink(ino), ARGV[i + 1])
      i = i + 2
    elseif kind == 'x' then
      redis.call('HSET', k_xattr(ino), ARGV[i + 1], ARGV[i + 2])
      i = i + 3
    elseif kind == 'c' then
      local packed, list = ARGV[i + 2], {}
      for p = 1, #packed, SLEN do
        local r = string.sub(packed, p, p + SLEN - 1)
        list[#list + 1] = r
        ref(r)
        local _, id = struct.unpack(SFMT, r)
        if id ~= 0 then redis.call('ZREMRANGEBYSCORE', K_DEAD, d(id), d(id)) end
      end
      if #list > 0 then
        push_all(k_chunk(ino, tonumber(ARGV[i + 1])), list)
        redis.call('SADD', k_chunks(ino), ARGV[i + 1])
      end
      i = i + 3
    else
      return fail('EINVAL unknown record kind ' .. kind)
    end
  end
  for m in pairs(was) do moved[#moved + 1] = m end
end
add_usage(ds, di)
-- The children, from the members' last 8 bytes.
for j, m in ipairs(moved) do moved[j] = string.sub(m, -8) end
return {table.concat(kept), table.concat(moved)}
