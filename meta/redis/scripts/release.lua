-- release: session, ino. Deletes ino if it is an orphan of the session.
local sid, ino = tonumber(ARGV[A]), tonumber(ARGV[A + 1])
if redis.call('SREM', k_orphans(sid), d(ino)) == 0 then return 0 end
local a = get_attr(ino)
if a and a.nlink == 0 then destroy(ino, a) end
return 1
