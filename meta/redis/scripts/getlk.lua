-- getlk: ino, session, owner, lock. Returns the first conflicting lock,
-- or type 2 (unlocked).
local ino, me = tonumber(ARGV[A]), ARGV[A + 1] .. ':' .. ARGV[A + 2]
local l = read_lock(A + 3)
local r = conflict(P .. ':p' .. d(ino), me, l)
if not r then return {2, 0, 0, 0} end
local stop = -1
if r.e ~= math.huge then stop = r.e end
return {r.t, r.s, stop, r.pid}
