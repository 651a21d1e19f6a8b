-- fallocate: ino, mode, offset, size.
local ino, mode, off, size = tonumber(ARGV[A]), tonumber(ARGV[A + 1]), tonumber(ARGV[A + 2]), tonumber(ARGV[A + 3])
local a = get_attr(ino)
if not a then return fail('ENOENT') end
if a.t == TDIR then return fail('EISDIR') end
if a.t ~= TFILE then return fail('ENODEV') end
local e = access(a, cred, MAY_WRITE)
if e then return fail(e) end
local stop = off + size
if stop > MAXLEN then return fail('EFBIG') end
local keep, punch, zero = band(mode, 1) ~= 0, band(mode, 2) ~= 0, band(mode, 16) ~= 0
local old, oldlen = space(a), a.len
if not keep and stop > a.len then a.len = stop end
local ds = space(a) - old
e = check_quota(ds, 0)
if e then return fail(e) end
if punch or zero then
  -- Hole records over the data the range covers; chunks without data
  -- already read as zeros.
  local to = math.min(stop, oldlen)
  if to > off then
    for idx = math.floor(off / CHUNK), math.floor((to - 1) / CHUNK) do
      if redis.call('SISMEMBER', k_chunks(ino), d(idx)) == 1 then
        local base = idx * CHUNK
        local from, upto = math.max(off, base) - base, math.min(to, base + CHUNK) - base
        redis.call('RPUSH', k_chunk(ino, idx), struct.pack(SFMT, from, 0, 0, 0, upto - from))
      end
    end
  end
end
if punch or zero or a.len ~= oldlen then touch_mc(a) end
add_usage(ds, 0)
return put_attr(ino, a)
