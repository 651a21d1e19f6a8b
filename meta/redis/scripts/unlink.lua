-- unlink: parent, name, session. Returns {ino, attr}.
local parent, name, sid = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 2])
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
if a.t == TDIR then return fail('EISDIR') end
redis.call('ZREM', k_dir(parent), en.m)
touch_mc(p)
put_attr(parent, p)
a.nlink = a.nlink - 1
touch_c(a)
if a.nlink == 0 then orphan(en.ino, sid) end
return {en.ino, put_attr(en.ino, a)}
