-- lookup: parent, name. Returns {ino, attr}.
local parent, name = tonumber(ARGV[A]), ARGV[A + 1]
local p, e = get_dir(parent)
if not p then return fail(e) end
local en = find(parent, name)
if not en then return fail('ENOENT') end
local b = redis.call('GET', k_attr(en.ino))
if not b then return fail('ENOENT') end
return {en.ino, b}
