-- truncate: ino, length.
local ino, len = tonumber(ARGV[A]), tonumber(ARGV[A + 1])
local a = get_attr(ino)
if not a then return fail('ENOENT') end
if a.t == TDIR then return fail('EISDIR') end
if a.t ~= TFILE then return fail('EINVAL') end
local e = access(a, cred, MAY_WRITE)
if e then return fail(e) end
if len > MAXLEN then return fail('EFBIG') end
local old, oldlen = space(a), a.len
a.len = len
local ds = space(a) - old
e = check_quota(ds, 0)
if e then return fail(e) end
if len < oldlen then
  -- Chunks wholly past the new end go; in the one the end cuts, every
  -- record is cut there, so that growing the file again shows zeros.
  local first = math.ceil(len / CHUNK)
  for _, m in ipairs(redis.call('SMEMBERS', k_chunks(ino))) do
    if tonumber(m) >= first then drop_chunk(ino, tonumber(m)) end
  end
  local cut, idx = len % CHUNK, math.floor(len / CHUNK)
  if cut ~= 0 and redis.call('SISMEMBER', k_chunks(ino), d(idx)) == 1 then
    local k = k_chunk(ino, idx)
    local kept = {}
    for _, r in ipairs(redis.call('LRANGE', k, 0, -1)) do
      local pos, id, size, off, n = struct.unpack(SFMT, r)
      if pos >= cut then
        unref(r)
      elseif pos + n > cut then
        kept[#kept + 1] = struct.pack(SFMT, pos, id, size, off, cut - pos)
      else
        kept[#kept + 1] = r
      end
    end
    redis.call('DEL', k)
    if #kept > 0 then
      push_all(k, kept)
    else
      redis.call('SREM', k_chunks(ino), d(idx))
    end
  end
end
touch_mc(a)
add_usage(ds, 0)
return put_attr(ino, a)
