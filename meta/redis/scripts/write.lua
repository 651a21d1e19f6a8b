-- write: ino, chunk index, slice record, mtime s, mtime ns.
-- Returns {attr, records in the chunk's list}.
local ino, idx, rec = tonumber(ARGV[A]), tonumber(ARGV[A + 1]), ARGV[A + 2]
local ms, mn = tonumber(ARGV[A + 3]), tonumber(ARGV[A + 4])
local a = get_attr(ino)
if not a then return fail('ENOENT') end
if a.t == TDIR then return fail('EISDIR') end
if a.t ~= TFILE then return fail('EINVAL') end
local pos, _, _, _, n = struct.unpack(SFMT, rec)
local stop = idx * CHUNK + pos + n
if stop > MAXLEN then return fail('EFBIG') end
local old = space(a)
if stop > a.len then a.len = stop end
local ds = space(a) - old
local e = check_quota(ds, 0)
if e then return fail(e) end
local count = redis.call('RPUSH', k_chunk(ino, idx), rec)
redis.call('SADD', k_chunks(ino), d(idx))
ref(rec)
a.ms, a.mn, a.cs, a.cn = ms, mn, ms, mn
add_usage(ds, 0)
return {put_attr(ino, a), count}
