-- lib.lua is prepended to every operation's script. It names the keys,
-- packs and unpacks records, and reads the caller's identity and clock,
-- which every script receives as ARGV[1..5]: uid, gid, supplementary gids
-- (comma-separated), now (seconds), now (nanoseconds). KEYS[1] is the
-- volume's key prefix. Numbers stay below 2^53, where Lua's doubles are
-- exact; nanosecond times are therefore kept as seconds + nanoseconds.
local P = KEYS[1]
local band, bor, bnot, rshift = bit.band, bit.bor, bit.bnot, bit.rshift
local CHUNK = 67108864
local MAXLEN = 9007199254740992
local TFILE, TDIR, TSYMLINK = 1, 2, 3
local MAY_EXEC, MAY_WRITE, MAY_READ = 1, 2, 4
local AFMT = '>BHI4I4I4I4I8i8I4i8I4i8I4I8'
local SFMT = '>I4I8I4I4I4'
local SLEN = 24

-- d formats an integer for a key or a command argument (never 1e+15).
local function d(n) return string.format('%d', n) end

local function k_attr(ino) return P .. ':i' .. d(ino) end
local function k_dir(ino) return P .. ':d' .. d(ino) end
local function k_chunk(ino, idx) return P .. ':c' .. d(ino) .. ':' .. d(idx) end
local function k_chunks(ino) return P .. ':cl' .. d(ino) end
local function k_xattr(ino) return P .. ':x' .. d(ino) end
local function k_symlink(ino) return P .. ':s' .. d(ino) end
local function k_orphans(sid) return P .. ':o' .. d(sid) end
local function k_locked(sid) return P .. ':l' .. d(sid) end
local K_USAGE, K_QUOTA, K_DEAD = P .. ':usage', P .. ':quota', P .. ':dead'

local cred = {uid = tonumber(ARGV[1]), gid = tonumber(ARGV[2]), gids = {}}
for g in string.gmatch(ARGV[3], '%d+') do cred.gids[#cred.gids + 1] = tonumber(g) end
local now_s, now_ns = tonumber(ARGV[4]), tonumber(ARGV[5])
local A = 6

local function fail(errno) return redis.error_reply(errno) end

local function unpack_attr(b)
  local a = {}
  a.t, a.mode, a.uid, a.gid, a.rdev, a.nlink, a.len, a.as, a.an, a.ms, a.mn, a.cs, a.cn, a.parent =
    struct.unpack(AFMT, b)
  return a
end

local function pack_attr(a)
  return struct.pack(AFMT, a.t, a.mode, a.uid, a.gid, a.rdev, a.nlink, a.len,
    a.as, a.an, a.ms, a.mn, a.cs, a.cn, a.parent)
end

local function get_attr(ino)
  local b = redis.call('GET', k_attr(ino))
  if not b then return nil end
  return unpack_attr(b)
end

local function put_attr(ino, a)
  local b = pack_attr(a)
  redis.call('SET', k_attr(ino), b)
  return b
end

local function touch_c(a) a.cs, a.cn = now_s, now_ns end
local function touch_mc(a) a.ms, a.mn, a.cs, a.cn = now_s, now_ns, now_s, now_ns end

-- get_dir loads a directory that an operation works in.
local function get_dir(ino)
  local a = get_attr(ino)
  if not a then return nil, 'ENOENT' end
  if a.t ~= TDIR then return nil, 'ENOTDIR' end
  return a
end

-- A directory is a sorted set of score 0 whose members are
-- name .. "\0" .. type (1 byte) .. ino (8 bytes): byte order of the members
-- is byte order of the names, as no name holds a zero byte.
local function find(dir, name)
  local r = redis.call('ZRANGEBYLEX', k_dir(dir), '[' .. name .. '\0', '(' .. name .. '\1', 'LIMIT', 0, 1)
  if #r == 0 then return nil end
  local t, ino = struct.unpack('>BI8', r[1], #name + 2)
  return {t = t, ino = ino, m = r[1]}
end

local function add_entry(dir, name, t, ino)
  redis.call('ZADD', k_dir(dir), 0, name .. '\0' .. struct.pack('>BI8', t, ino))
end

-- push_all appends values to list k, in batches that fit Lua's stack.
local function push_all(k, values)
  for i = 1, #values, 1000 do
    redis.call('RPUSH', k, unpack(values, i, math.min(i + 999, #values)))
  end
end

-- space is what an inode adds to the volume's used space.
local function space(a)
  if a.t ~= TFILE then return 0 end
  return math.ceil(a.len / 4096) * 4096
end

local function add_usage(ds, di)
  if ds ~= 0 then redis.call('HINCRBY', K_USAGE, 'space', d(ds)) end
  if di ~= 0 then redis.call('HINCRBY', K_USAGE, 'inodes', d(di)) end
end

-- check_quota says whether the volume's limits allow ds more bytes and di
-- more inodes.
local function check_quota(ds, di)
  if ds <= 0 and di <= 0 then return nil end
  local q = redis.call('HMGET', K_QUOTA, 'space', 'inodes')
  local qs, qi = tonumber(q[1]) or 0, tonumber(q[2]) or 0
  if (ds <= 0 or qs == 0) and (di <= 0 or qi == 0) then return nil end
  local u = redis.call('HMGET', K_USAGE, 'space', 'inodes')
  if ds > 0 and qs > 0 and (tonumber(u[1]) or 0) + ds > qs then return 'ENOSPC' end
  if di > 0 and qi > 0 and (tonumber(u[2]) or 0) + di > qi then return 'ENOSPC' end
  return nil
end

-- Slices may be shared by several records (copy_file_range writes a
-- record of another file's slice): P:refs counts the records naming each
-- slice, and a slice goes to the dead-slice queue with its last record.
local K_REFS = P .. ':refs'

local function ref(rec)
  local _, id = struct.unpack(SFMT, rec)
  if id ~= 0 then redis.call('HINCRBY', K_REFS, d(id), 1) end
end

local function unref(rec)
  local _, id, size = struct.unpack(SFMT, rec)
  if id == 0 then return end
  if redis.call('HINCRBY', K_REFS, d(id), -1) <= 0 then
    redis.call('HDEL', K_REFS, d(id))
    redis.call('ZADD', K_DEAD, d(id), d(id) .. ':' .. d(size))
  end
end

-- drop_chunk deletes chunk idx of ino and unreferences its slices.
local function drop_chunk(ino, idx)
  local k = k_chunk(ino, idx)
  for _, r in ipairs(redis.call('LRANGE', k, 0, -1)) do unref(r) end
  redis.call('DEL', k)
  redis.call('SREM', k_chunks(ino), d(idx))
end

-- destroy deletes an inode with all it holds and takes it out of Usage.
local function destroy(ino, a)
  if a.t == TFILE then
    for _, idx in ipairs(redis.call('SMEMBERS', k_chunks(ino))) do
      drop_chunk(ino, tonumber(idx))
    end
  end
  redis.call('DEL', k_attr(ino), k_xattr(ino), k_symlink(ino), k_dir(ino), k_chunks(ino))
  add_usage(-space(a), -1)
end

-- orphan keeps an inode that lost its last link for session sid.
local function orphan(ino, sid)
  redis.call('SADD', k_orphans(sid), d(ino))
end
