-- removexattr: ino, name.
local ino, name = tonumber(ARGV[A]), ARGV[A + 1]
local a = get_attr(ino)
if not a then return fail('ENOENT') end
if cred.uid ~= 0 and cred.uid ~= a.uid then return fail('EPERM') end
if redis.call('HDEL', k_xattr(ino), name) == 0 then return fail('ENODATA') end
touch_c(a)
put_attr(ino, a)
return 1
