-- mknod: parent, name, ino, type, mode, rdev, symlink target.
local parent, name, ino = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 2])
local t, mode, rdev, target = tonumber(ARGV[A + 3]), tonumber(ARGV[A + 4]), tonumber(ARGV[A + 5]), ARGV[A + 6]
local p, e = get_dir(parent)
if not p then return fail(e) end
e = access(p, cred, MAY_EXEC)
if e then return fail(e) end
if find(parent, name) then return fail('EEXIST') end
e = access(p, cred, MAY_WRITE)
if e then return fail(e) end
if p.nlink == 0 then return fail('ENOENT') end
if redis.call('EXISTS', k_attr(ino)) == 1 then return fail('EIO inode number in use') end
local a = init_attr(p, cred, t, mode, rdev)
if t == TDIR then a.parent = parent end
if t == TSYMLINK then a.len = #target end
e = check_quota(space(a), 1)
if e then return fail(e) end
if t == TDIR then p.nlink = p.nlink + 1 end
touch_mc(p)
put_attr(parent, p)
add_entry(parent, name, t, ino)
if t == TSYMLINK then redis.call('SET', k_symlink(ino), target) end
add_usage(space(a), 1)
return put_attr(ino, a)
