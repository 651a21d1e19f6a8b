-- unlink: parent, name, session. Returns {ino, attr}.
local parent, name, sid = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 2])
local p, en, a = find_victim(parent, name)
if not p then return fail(en) end
if a.t == TDIR then return fail('EISDIR') end
redis.call('ZREM', k_dir(parent), en.m)
touch_mc(p)
put_attr(parent, p)
a.nlink = a.nlink - 1
touch_c(a)
if a.nlink == 0 then orphan(en.ino, sid) end
return {en.ino, put_attr(en.ino, a)}
