-- setattr: ino, then the change as read_set reads it.
local ino = tonumber(ARGV[A])
local a = get_attr(ino)
if not a then return fail('ENOENT') end
local e = apply_setattr(a, cred, read_set(A + 1))
if e then return fail(e) end
return put_attr(ino, a)
