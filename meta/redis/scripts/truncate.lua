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
  -- Chunks wholly past the new end go; the one it cuts gets a hole record
  -- so that growing the file again shows zeros there.
  local first = math.ceil(len / CHUNK)
  for _, m in ipairs(redis.call('SMEMBERS', k_chunks(ino))) do
    if tonumber(m) >= first then drop_chunk(ino, tonumber(m)) end
  end
  local cut = len % CHUNK
  local idx = math.floor(len / CHUNK)
  if cut ~= 0 and redis.call('SISMEMBER', k_chunks(ino), d(idx)) == 1 then
    local stop = math.min(CHUNK, oldlen - idx * CHUNK)
    redis.call('RPUSH', k_chunk(ino, idx), struct.pack(SFMT, cut, 0, 0, 0, stop - cut))
  end
end
touch_mc(a)
add_usage(ds, 0)
return put_attr(ino, a)
