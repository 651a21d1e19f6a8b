-- lookup: parent, name. Returns {ino, attr}. A read, run without lib.lua
-- (see standalone in scripts.go): one EVALSHA as cheap as the reads in it.
-- It follows lib.lua's key names, attribute layout (the type is the first
-- byte) and directory members (name .. "\0" .. type .. ino).
local P, parent, name = KEYS[1], ARGV[6], ARGV[7]
local p = redis.call('GET', P .. ':i' .. parent)
if not p then return redis.error_reply('ENOENT') end
if string.byte(p, 1) ~= 2 then return redis.error_reply('ENOTDIR') end
local r = redis.call('ZRANGEBYLEX', P .. ':d' .. parent, '[' .. name .. '\0', '(' .. name .. '\1', 'LIMIT', 0, 1)
if #r == 0 then return redis.error_reply('ENOENT') end
local _, ino = struct.unpack('>BI8', r[1], #name + 2)
local b = redis.call('GET', P .. ':i' .. string.format('%d', ino))
if not b then return redis.error_reply('ENOENT') end
return {ino, b}
