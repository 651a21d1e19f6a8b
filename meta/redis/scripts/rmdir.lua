-- rmdir: parent, name.
local parent, name = tonumber(ARGV[A]), ARGV[A + 1]
local p, en, a = find_victim(parent, name)
if not p then return fail(en) end
if a.t ~= TDIR then return fail('ENOTDIR') end
if redis.call('ZCARD', k_dir(en.ino)) > 0 then return fail('ENOTEMPTY') end
redis.call('ZREM', k_dir(parent), en.m)
p.nlink = p.nlink - 1
touch_mc(p)
put_attr(parent, p)
destroy(en.ino, a)
return 1
