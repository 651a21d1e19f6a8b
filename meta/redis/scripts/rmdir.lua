-- rmdir: parent, name.
local parent, name = tonumber(ARGV[A]), ARGV[A + 1]
local p, e = get_dir(parent)
if not p then return fail(e) end
e = access(p, cred, MAY_EXEC)
if e then return fail(e) end
local en = find(parent, name)
if not en then return fail('ENOENT') end
local a = get_attr(en.ino)
if not a then return fail('EIO entry without inode') end
e = may_delete(p, a, cred)
if e then return fail(e) end
if a.t ~= TDIR then return fail('ENOTDIR') end
if redis.call('ZCARD', k_dir(en.ino)) > 0 then return fail('ENOTEMPTY') end
redis.call('ZREM', k_dir(parent), en.m)
p.nlink = p.nlink - 1
touch_mc(p)
put_attr(parent, p)
destroy(en.ino, a)
return 1
