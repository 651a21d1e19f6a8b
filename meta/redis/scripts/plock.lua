-- plock.lua is prepended to getlk and setlk: POSIX byte-range locks of an
-- inode are a hash from "session:owner" to that owner's ranges, each
-- packed as type, start, end (doubles; end is math.huge for "to EOF"), pid.
local LFMT = '>BddI4'

local function ranges(b)
  local out, pos = {}, 1
  while b and pos <= #b do
    local r = {}
    r.t, r.s, r.e, r.pid, pos = struct.unpack(LFMT, b, pos)
    out[#out + 1] = r
  end
  return out
end

-- read_lock reads type, start, end (-1: to EOF), pid from ARGV[i..i+3].
local function read_lock(i)
  local l = {t = tonumber(ARGV[i]), s = tonumber(ARGV[i + 1]), e = tonumber(ARGV[i + 2]), pid = tonumber(ARGV[i + 3])}
  if l.e < 0 then l.e = math.huge end
  return l
end

-- conflict finds another owner's range that l may not coexist with, as
-- meta.LocksConflict decides.
local function conflict(k, me, l)
  local all = redis.call('HGETALL', k)
  for i = 1, #all, 2 do
    if all[i] ~= me then
      for _, r in ipairs(ranges(all[i + 1])) do
        if r.s <= l.e and l.s <= r.e and (l.t == 1 or r.t == 1) then return r end
      end
    end
  end
  return nil
end
