-- link: ino, parent, name.
local ino, parent, name = tonumber(ARGV[A]), tonumber(ARGV[A + 1]), ARGV[A + 2]
local a = get_attr(ino)
if not a then return fail('ENOENT') end
if a.t == TDIR then return fail('EPERM') end
local p, e = get_dir(parent)
if not p then return fail(e) end
e = access(p, cred, MAY_EXEC)
if e then return fail(e) end
if find(parent, name) then return fail('EEXIST') end
e = access(p, cred, MAY_WRITE)
if e then return fail(e) end
if p.nlink == 0 or a.nlink == 0 then return fail('ENOENT') end
a.nlink = a.nlink + 1
touch_c(a)
touch_mc(p)
put_attr(parent, p)
add_entry(parent, name, a.t, ino)
return put_attr(ino, a)
