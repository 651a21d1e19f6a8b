-- setxattr: ino, name, value, flags (bit 1 create, bit 2 replace; both
-- together fail either way, as on Linux).
local ino, name, value, flags = tonumber(ARGV[A]), ARGV[A + 1], ARGV[A + 2], tonumber(ARGV[A + 3])
local a = get_attr(ino)
if not a then return fail('ENOENT') end
if cred.uid ~= 0 and cred.uid ~= a.uid then return fail('EPERM') end
local there = redis.call('HEXISTS', k_xattr(ino), name) == 1
if flags % 2 == 1 and there then return fail('EEXIST') end
if flags >= 2 and not there then return fail('ENODATA') end
redis.call('HSET', k_xattr(ino), name, value)
touch_c(a)
put_attr(ino, a)
return 1
